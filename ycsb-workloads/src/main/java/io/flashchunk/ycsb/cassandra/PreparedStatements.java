package io.flashchunk.ycsb.cassandra;

import static com.datastax.oss.driver.api.querybuilder.QueryBuilder.bindMarker;
import static com.datastax.oss.driver.api.querybuilder.QueryBuilder.deleteFrom;
import static com.datastax.oss.driver.api.querybuilder.QueryBuilder.insertInto;
import static com.datastax.oss.driver.api.querybuilder.QueryBuilder.raw;
import static com.datastax.oss.driver.api.querybuilder.QueryBuilder.selectFrom;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.querybuilder.QueryBuilder;
import com.datastax.oss.driver.api.querybuilder.insert.RegularInsert;
import com.datastax.oss.driver.api.querybuilder.select.Select;
import com.datastax.oss.driver.api.querybuilder.select.SelectFrom;
import com.datastax.oss.driver.api.querybuilder.update.UpdateStart;
import com.datastax.oss.driver.api.querybuilder.update.UpdateWithAssignments;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The binding's CQL, prepared once per table and column list and then reused: YCSB asks for the
 * same few field sets over and over. Column lists must come sorted, so a set has one key here
 * and one bind order. An empty list means every column.
 */
final class PreparedStatements {
    /** The partition key column of YCSB tables. */
    static final String KEY_COLUMN = "y_id";

    enum Kind { READ, SCAN, INSERT, UPDATE, DELETE }

    private record Key(Kind kind, String table, List<String> columns) {
    }

    private final CqlSession session;
    private final ConcurrentMap<Key, PreparedStatement> prepared = new ConcurrentHashMap<>();

    PreparedStatements(CqlSession session) {
        this.session = session;
    }

    /** Binds: key. */
    PreparedStatement read(String table, List<String> columns) {
        return get(Kind.READ, table, columns);
    }

    /** Binds: start key, row limit. */
    PreparedStatement scan(String table, List<String> columns) {
        return get(Kind.SCAN, table, columns);
    }

    /** Binds: key, then the columns' values. */
    PreparedStatement insert(String table, List<String> columns) {
        return get(Kind.INSERT, table, columns);
    }

    /** Binds: the columns' values, then the key. */
    PreparedStatement update(String table, List<String> columns) {
        return get(Kind.UPDATE, table, columns);
    }

    /** Binds: key. */
    PreparedStatement delete(String table) {
        return get(Kind.DELETE, table, List.of());
    }

    int size() {
        return prepared.size();
    }

    private PreparedStatement get(Kind kind, String table, List<String> columns) {
        return prepared.computeIfAbsent(new Key(kind, table, List.copyOf(columns)),
                key -> session.prepare(cql(key.kind(), key.table(), key.columns())));
    }

    static SimpleStatement cql(Kind kind, String table, List<String> columns) {
        return switch (kind) {
            case READ -> selectColumns(table, columns).whereColumn(KEY_COLUMN).isEqualTo(bindMarker()).build();
            // Token order, as YCSB's former binding scanned: rows from the start key's token on.
            // token is a reserved word the builder's function() would quote, hence raw.
            case SCAN -> selectColumns(table, columns).whereToken(KEY_COLUMN)
                    .isGreaterThanOrEqualTo(raw("token(?)")).limit(bindMarker()).build();
            case INSERT -> insertColumns(table, columns).build();
            case UPDATE -> updateColumns(table, columns).whereColumn(KEY_COLUMN).isEqualTo(bindMarker()).build();
            case DELETE -> deleteFrom(table).whereColumn(KEY_COLUMN).isEqualTo(bindMarker()).build();
        };
    }

    private static Select selectColumns(String table, List<String> columns) {
        SelectFrom from = selectFrom(table);
        return columns.isEmpty() ? from.all() : from.columns(columns);
    }

    private static RegularInsert insertColumns(String table, List<String> columns) {
        RegularInsert insert = insertInto(table).value(KEY_COLUMN, bindMarker());
        for (String column : columns) {
            insert = insert.value(column, bindMarker());
        }
        return insert;
    }

    private static UpdateWithAssignments updateColumns(String table, List<String> columns) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("an update needs at least one column");
        }
        UpdateStart start = QueryBuilder.update(table);
        UpdateWithAssignments assignments = start.setColumn(columns.get(0), bindMarker());
        for (String column : columns.subList(1, columns.size())) {
            assignments = assignments.setColumn(column, bindMarker());
        }
        return assignments;
    }
}
