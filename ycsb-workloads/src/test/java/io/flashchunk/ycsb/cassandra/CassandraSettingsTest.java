package io.flashchunk.ycsb.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CassandraSettingsTest {
    @Test
    void defaultsNeedOnlyHosts() {
        CassandraSettings settings = CassandraSettings.from(properties("hosts", "127.0.0.1"));

        assertEquals(new CassandraSettings(List.of("127.0.0.1"), 9042, "datacenter1", "ycsb",
                DefaultConsistencyLevel.ONE, DefaultConsistencyLevel.ONE,
                Duration.ofSeconds(5), Duration.ofSeconds(12), Duration.ofSeconds(60), false, Duration.ZERO), settings);
    }

    @Test
    void readsEverySetting() {
        CassandraSettings settings = CassandraSettings.from(properties(
                "hosts", "10.0.0.1, node2",
                "port", "19042",
                "cassandra.localdc", "dc2",
                "cassandra.keyspace", "bench",
                "cassandra.readconsistencylevel", "local_quorum",
                "cassandra.writeconsistencylevel", "ALL",
                "cassandra.connecttimeoutmillis", "700",
                "cassandra.requesttimeoutmillis", "30000",
                "cassandra.reconnectmaxmillis", "500",
                "cassandra.onlyhosts", "TRUE",
                "cassandra.connectwaitmillis", "90000"));

        assertEquals(new CassandraSettings(List.of("10.0.0.1", "node2"), 19042, "dc2", "bench",
                DefaultConsistencyLevel.LOCAL_QUORUM, DefaultConsistencyLevel.ALL,
                Duration.ofMillis(700), Duration.ofSeconds(30), Duration.ofMillis(500), true, Duration.ofSeconds(90)),
                settings);
    }

    @Test
    void hostsAreRequired() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CassandraSettings.from(new Properties()));

        assertTrue(e.getMessage().startsWith("hosts is required"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "hosts| ",
        "hosts|a,,b",
        "port|0",
        "port|65536",
        "port|nine",
        "cassandra.localdc| ",
        "cassandra.keyspace| ",
        "cassandra.readconsistencylevel|MOST",
        "cassandra.writeconsistencylevel|",
        "cassandra.connecttimeoutmillis|0",
        "cassandra.requesttimeoutmillis|-5",
        "cassandra.requesttimeoutmillis|1.5",
        "cassandra.reconnectmaxmillis|0",
        "cassandra.onlyhosts|yes",
        "cassandra.connectwaitmillis|-1",
    })
    void badValuesAreRefusedNamingTheSetting(String name, String value) {
        Properties p = properties("hosts", "127.0.0.1");
        p.setProperty(name, value == null ? "" : value);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CassandraSettings.from(p));

        assertTrue(e.getMessage().startsWith(name + " "), e.getMessage());
    }

    private static Properties properties(String... namesAndValues) {
        Properties p = new Properties();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            p.setProperty(namesAndValues[i], namesAndValues[i + 1]);
        }
        return p;
    }
}
