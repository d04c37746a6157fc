package io.flashchunk.ycsb;

/**
 * What a calibration settled on: the phrases to repeat, the share of random bytes to put
 * between them, and the LZ4 reduction that mix measured on the calibration sample.
 */
record ValueMix(PhraseDictionary dictionary, double randomShare, double measuredReduction) {
}
