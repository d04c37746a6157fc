package io.flashchunk.cassandra.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileRegistry;
import java.util.Arrays;
import javax.management.MBeanAttributeInfo;
import javax.management.StandardMBean;
import org.junit.jupiter.api.Test;

/** The MXBean's list of cached files, which cluster tests compare with each node's SSTables. */
class CachedFilesTest {

    private static FileIdentity identity(String path, long inode) {
        return new FileIdentity(path, 1 << 20, 1_000, inode, 5_000, 9);
    }

    @Test
    void listsLiveFilesByPathAndLeavesInvalidatedOnesOut() {
        FileRegistry files = new FileRegistry();
        files.register(identity("/data/b/nb-2-big-Data.db", 2), replaced -> { });
        files.register(identity("/data/a/nb-1-big-Data.db", 1), replaced -> { });
        CachedFile gone = files.register(identity("/data/c/nb-3-big-Data.db", 3), replaced -> { });
        files.invalidate(gone);

        assertEquals("/data/a/nb-1-big-Data.db\n/data/b/nb-2-big-Data.db\n", FlashChunkCacheMetrics.describeFiles(files.live()));
        assertEquals("", FlashChunkCacheMetrics.describeFiles(new FileRegistry().live()));
    }

    @Test
    void isTheMXBeanAttributeCachedFiles() throws Exception {
        // the name scripts read with `nodetool sjk mx -mg -f CachedFiles`; building the info calls no getter
        StandardMBean bean = new StandardMBean(new FlashChunkCacheMetrics(null, null), FlashChunkCacheMXBean.class, true);
        MBeanAttributeInfo attribute = Arrays.stream(bean.getMBeanInfo().getAttributes())
                .filter(a -> a.getName().equals("CachedFiles")).findFirst().orElseThrow();
        assertEquals(String.class.getName(), attribute.getType());
        assertTrue(attribute.isReadable() && !attribute.isWritable());
    }
}
