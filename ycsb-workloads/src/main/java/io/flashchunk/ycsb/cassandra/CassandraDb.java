package io.flashchunk.ycsb.cassandra;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.servererrors.UnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for Apache Cassandra on the Java driver 4.x. Tables have a {@code text} partition
 * key {@code y_id} and {@code text} fields (see {@code scripts/ycsb.sh create-table}). Settings:
 * {@link CassandraSettings}. YCSB makes one instance per client thread; all share one session.
 */
public class CassandraDb extends DB {
    private static final SharedInstance<CassandraConnection> CONNECTION = new SharedInstance<>();
    private static final ErrorLog ERRORS = new ErrorLog();

    private CassandraConnection connection;
    private PreparedStatements statements;
    private ConsistencyLevel readConsistency;
    private ConsistencyLevel writeConsistency;

    @Override
    public void init() throws DBException {
        CassandraSettings settings;
        try {
            settings = CassandraSettings.from(getProperties());
        } catch (IllegalArgumentException e) {
            throw new DBException(e.getMessage());
        }
        try {
            connection = CONNECTION.acquire(() -> FirstConnection.open(() -> CassandraConnection.open(settings),
                    settings.connectWait()));
        } catch (RuntimeException e) {
            throw new DBException("cannot connect to Cassandra at " + settings.hosts() + " port " + settings.port()
                    + ", keyspace " + settings.keyspace() + ": " + e.getMessage(), e);
        }
        if (!connection.settings().equals(settings)) {
            releaseQuietly();
            throw new DBException("all client threads must use the same Cassandra settings");
        }
        statements = connection.statements();
        readConsistency = settings.readConsistency();
        writeConsistency = settings.writeConsistency();
    }

    @Override
    public void cleanup() throws DBException {
        if (connection == null) {
            return;
        }
        connection = null;
        try {
            CONNECTION.release();
        } catch (Exception e) {
            throw new DBException("closing the Cassandra session failed: " + e.getMessage(), e);
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            PreparedStatement statement = statements.read(table, sorted(fields));
            Row row = execute(statement.bind(key), readConsistency).one();
            if (row == null) {
                return Status.NOT_FOUND;
            }
            copyFields(row, result);
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("read", key, e);
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        try {
            PreparedStatement statement = statements.scan(table, sorted(fields));
            for (Row row : execute(statement.bind(startkey, recordcount), readConsistency)) {
                HashMap<String, ByteIterator> values = new HashMap<>();
                copyFields(row, values);
                result.add(values);
            }
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("scan", startkey, e);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            List<String> columns = sorted(values.keySet());
            List<Object> bound = texts(columns, values);
            bound.add(key);
            execute(statements.update(table, columns).bind(bound.toArray()), writeConsistency);
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("update", key, e);
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            List<String> columns = sorted(values.keySet());
            List<Object> bound = new ArrayList<>(columns.size() + 1);
            bound.add(key);
            bound.addAll(texts(columns, values));
            execute(statements.insert(table, columns).bind(bound.toArray()), writeConsistency);
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("insert", key, e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            execute(statements.delete(table).bind(key), writeConsistency);
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("delete", key, e);
        }
    }

    private ResultSet execute(BoundStatement statement, ConsistencyLevel consistency) {
        return connection.session().execute(statement.setConsistencyLevel(consistency));
    }

    /** Null (YCSB's "all fields") becomes the empty list: select every column. */
    private static List<String> sorted(Set<String> fields) {
        return fields == null ? List.of() : fields.stream().sorted().toList();
    }

    private static List<Object> texts(List<String> columns, Map<String, ByteIterator> values) {
        List<Object> texts = new ArrayList<>(columns.size() + 1);
        for (String column : columns) {
            // ByteIterator.toString() decodes UTF-8, the encoding of CQL text.
            texts.add(values.get(column).toString());
        }
        return texts;
    }

    /** Every non-null column but the key, as UTF-8 bytes. */
    private static void copyFields(Row row, Map<String, ByteIterator> result) {
        for (ColumnDefinition column : row.getColumnDefinitions()) {
            String name = column.getName().asInternal();
            if (name.equals(PreparedStatements.KEY_COLUMN) || row.isNull(column.getName())) {
                continue;
            }
            String text = row.getString(column.getName());
            result.put(name, new ByteArrayByteIterator(text.getBytes(StandardCharsets.UTF_8)));
        }
    }

    private static Status failed(String operation, String key, RuntimeException e) {
        ERRORS.report(operation, key, e);
        if (e instanceof UnavailableException || e instanceof AllNodesFailedException) {
            return Status.SERVICE_UNAVAILABLE;
        }
        return Status.ERROR;
    }

    private void releaseQuietly() {
        connection = null;
        try {
            CONNECTION.release();
        } catch (Exception ignored) {
            // already failing with a clearer message
        }
    }
}
