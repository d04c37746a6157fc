package io.flashchunk.ycsb.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.flashchunk.ycsb.cassandra.PreparedStatements.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CQL the binding prepares; a real node runs it in the integration test. */
class PreparedStatementsTest {
    private static String cql(Kind kind, List<String> columns) {
        return PreparedStatements.cql(kind, "usertable", columns).getQuery();
    }

    @Test
    void readSelectsTheFieldsOfOneKey() {
        assertEquals("SELECT field1,field2 FROM usertable WHERE y_id=?", cql(Kind.READ, List.of("field1", "field2")));
        assertEquals("SELECT * FROM usertable WHERE y_id=?", cql(Kind.READ, List.of()));
    }

    @Test
    void scanWalksTokenOrderFromTheStartKey() {
        assertEquals("SELECT * FROM usertable WHERE token(y_id)>=token(?) LIMIT ?", cql(Kind.SCAN, List.of()));
    }

    @Test
    void writes() {
        assertEquals("INSERT INTO usertable (y_id,field0,field1) VALUES (?,?,?)", cql(Kind.INSERT, List.of("field0", "field1")));
        assertEquals("UPDATE usertable SET field3=?, field5=? WHERE y_id=?", cql(Kind.UPDATE, List.of("field3", "field5")));
        assertEquals("DELETE FROM usertable WHERE y_id=?", cql(Kind.DELETE, List.of()));
    }

    @Test
    void anUpdateNeedsAColumn() {
        assertThrows(IllegalArgumentException.class, () -> cql(Kind.UPDATE, List.of()));
    }
}
