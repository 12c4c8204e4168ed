/*
 * The check of a pfgen index cache entry's arrays (hyoka/pfgen/index_cache.py), at the speed of
 * reading memory: a process that scores one run checks a few hundred megabytes of mapped trie
 * every time it loads them, so a rotted byte is found before it is walked.
 *
 * checksum(buffer, portable=False) -> bytes
 *   Three CRC-32C (Castagnoli: the polynomial of iSCSI, ext4 and btrfs; initial value and final
 *   xor 0xFFFFFFFF) of three consecutive lanes of the bytes: with L = (len // 24) * 8, lane 0 is
 *   bytes [0, L), lane 1 [L, 2L), lane 2 the rest [2L, len). The result is their 12 bytes,
 *   each CRC little-endian, lane 0 first. Three lanes keep three CRC units busy
 *   at once (about 25 GB/s here, where one stream does 8); each lane keeps the CRC's promises:
 *   every error of up to 3 bits, every burst of up to 32, is found in a lane shorter than 2^28
 *   bytes, any other with probability 1 - 2^-32 per lane.
 *
 * x86-64 with SSE4.2 and ARMv8 with its CRC extension use the instruction; other machines (or
 * portable=True, for the tests) a slicing-by-8 table: the same numbers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "_kernel.h"

#if defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
#endif

#define CRC32C_POLY 0x82F63B78u /* reflected */
#define LANES 3

static uint32_t table[8][256];
static int table_ready = 0;

static void fill_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int k = 0; k < 8; k++) {
            crc = crc & 1 ? (crc >> 1) ^ CRC32C_POLY : crc >> 1;
        }
        table[0][n] = crc;
    }
    for (uint32_t n = 0; n < 256; n++) {
        for (int t = 1; t < 8; t++) {
            table[t][n] = (table[t - 1][n] >> 8) ^ table[0][table[t - 1][n] & 0xFF];
        }
    }
    table_ready = 1;
}

/* crc (pre-inverted) of `size` bytes, eight at a time through the tables */
static uint32_t crc_portable(uint32_t crc, const unsigned char *p, size_t size) {
    while (size >= 8) {
        /* the bytes in memory order, whatever the machine's byte order */
        uint32_t low = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                              (uint32_t)p[3] << 24);
        crc = table[7][low & 0xFF] ^ table[6][(low >> 8) & 0xFF] ^ table[5][(low >> 16) & 0xFF] ^
              table[4][low >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^
              table[0][p[7]];
        p += 8;
        size -= 8;
    }
    while (size--) {
        crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xFF];
    }
    return crc;
}

static void lanes_portable(const unsigned char *p, size_t lane, size_t size, uint32_t *crc) {
    crc[0] = crc_portable(crc[0], p, lane);
    crc[1] = crc_portable(crc[1], p + lane, lane);
    crc[2] = crc_portable(crc[2], p + 2 * lane, size - 2 * lane);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_HARDWARE 1
__attribute__((target("sse4.2"))) static void lanes_hardware(const unsigned char *p, size_t lane,
                                                             size_t size, uint32_t *crc) {
    uint64_t c0 = crc[0], c1 = crc[1], c2 = crc[2];
    const unsigned char *a = p, *b = p + lane, *c = p + 2 * lane;
    for (size_t i = 0; i < lane; i += 8) { /* lane is a multiple of 8 */
        uint64_t x, y, z;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        memcpy(&z, c + i, 8);
        c0 = __builtin_ia32_crc32di(c0, x);
        c1 = __builtin_ia32_crc32di(c1, y);
        c2 = __builtin_ia32_crc32di(c2, z);
    }
    uint32_t last = (uint32_t)c2;
    for (size_t i = lane; i < size - 2 * lane; i++) {
        last = __builtin_ia32_crc32qi(last, c[i]);
    }
    crc[0] = (uint32_t)c0;
    crc[1] = (uint32_t)c1;
    crc[2] = last;
}
static int hardware(void) { return __builtin_cpu_supports("sse4.2"); }
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#define HAVE_HARDWARE 1
static void lanes_hardware(const unsigned char *p, size_t lane, size_t size, uint32_t *crc) {
    uint32_t c0 = crc[0], c1 = crc[1], c2 = crc[2];
    const unsigned char *a = p, *b = p + lane, *c = p + 2 * lane;
    for (size_t i = 0; i < lane; i += 8) {
        uint64_t x, y, z;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        memcpy(&z, c + i, 8);
        c0 = __crc32cd(c0, x);
        c1 = __crc32cd(c1, y);
        c2 = __crc32cd(c2, z);
    }
    for (size_t i = lane; i < size - 2 * lane; i++) {
        c2 = __crc32cb(c2, c[i]);
    }
    crc[0] = c0;
    crc[1] = c1;
    crc[2] = c2;
}
static int hardware(void) { return 1; }
#else
#define HAVE_HARDWARE 0
#endif

PyObject *hyoka_checksum(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *keywords[] = {"buffer", "portable", NULL};
    Py_buffer view = {0};
    int portable = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|p", keywords, &view, &portable)) {
        return NULL;
    }
    const unsigned char *p = view.buf;
    size_t size = (size_t)view.len;
    size_t lane = size / (LANES * 8) * 8;
    uint32_t crc[LANES] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    Py_BEGIN_ALLOW_THREADS;
#if HAVE_HARDWARE
    if (!portable && hardware()) {
        lanes_hardware(p, lane, size, crc);
    } else {
        lanes_portable(p, lane, size, crc);
    }
#else
    (void)portable;
    lanes_portable(p, lane, size, crc);
#endif
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&view);
    unsigned char digest[4 * LANES];
    for (int k = 0; k < LANES; k++) {
        uint32_t value = ~crc[k];
        for (int b = 0; b < 4; b++) {
            digest[4 * k + b] = (unsigned char)(value >> (8 * b));
        }
    }
    return PyBytes_FromStringAndSize((const char *)digest, sizeof(digest));
}

void hyoka_checksum_init(void) {
    if (!table_ready) {
        fill_table();
    }
}
