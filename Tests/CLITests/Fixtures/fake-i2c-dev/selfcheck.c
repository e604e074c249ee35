/*
 * selfcheck.c: exercises fake_i2c_dev.so through the real syscalls, the way Plumb's transport
 * will: open(2), every i2c-dev ioctl(2), close(2), then compares the log line by line.
 *
 * Usage (selfcheck.sh sets the environment and LD_PRELOAD):
 *     selfcheck <scenario> <device-path> <log-path>
 * Exits 0 when every check passed, 1 otherwise, printing each failed check on stderr.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/i2c.h>
#include <linux/i2c-dev.h>

static const char *device_path;
static const char *log_path;
static int failures;
static int log_checked; /* a scenario compared the log itself */

#define CHECK(condition, ...)                                                                  \
    do {                                                                                       \
        if (!(condition)) {                                                                    \
            failures++;                                                                        \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #condition);               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

/* ---- expected log ---- */

#define MAX_EXPECTED 1024
static char *expected[MAX_EXPECTED];
static size_t expected_count;

__attribute__((format(printf, 1, 2))) static void expect(const char *format, ...)
{
    if (expected_count >= MAX_EXPECTED) {
        fprintf(stderr, "selfcheck: too many expected lines\n");
        exit(2);
    }
    va_list arguments;
    va_start(arguments, format);
    char *text = NULL;
    if (vasprintf(&text, format, arguments) < 0) {
        exit(2);
    }
    va_end(arguments);
    expected[expected_count++] = text;
}

/** Reads the log and compares it with the expected lines, exactly and in order. */
static void check_log(void)
{
    FILE *file = fopen(log_path, "r");
    if (file == NULL) {
        CHECK(expected_count == 0, "no log file %s but %zu lines expected", log_path, expected_count);
        return;
    }
    char *actual = NULL;
    size_t capacity = 0;
    ssize_t length;
    size_t index = 0;
    while ((length = getline(&actual, &capacity, file)) >= 0) {
        CHECK(length > 0 && actual[length - 1] == '\n', "log line %zu lacks its newline", index + 1);
        if (length > 0 && actual[length - 1] == '\n') {
            actual[length - 1] = '\0';
        }
        if (index < expected_count) {
            CHECK(strcmp(actual, expected[index]) == 0, "log line %zu:\n  expected: %s\n  actual:   %s",
                  index + 1, expected[index], actual);
        } else {
            CHECK(0, "unexpected log line %zu: %s", index + 1, actual);
        }
        index++;
    }
    CHECK(index >= expected_count, "log has %zu lines, expected %zu; first missing: %s", index,
          expected_count, index < expected_count ? expected[index] : "");
    free(actual);
    fclose(file);
}

/* ---- operations ---- */

/** The errno of the last call that failed, or 0 if `result` is not -1. */
static int error_of(int result) { return result == -1 ? errno : 0; }

static int open_device(int flags)
{
    int fd = open(device_path, flags);
    CHECK(fd >= 0, "open %s: %s", device_path, strerror(errno));
    return fd;
}

/** A register read as one combined transaction: write [register], read `count` bytes. Returns
 *  the ioctl's result; errno on failure in *error. */
static int rdwr_read(int fd, uint16_t address, uint8_t reg, uint8_t *buffer, uint16_t count, int *error)
{
    uint8_t pointer = reg;
    struct i2c_msg messages[2] = {
        {.addr = address, .flags = 0, .len = 1, .buf = &pointer},
        {.addr = address, .flags = I2C_M_RD, .len = count, .buf = buffer},
    };
    struct i2c_rdwr_ioctl_data request = {.msgs = messages, .nmsgs = 2};
    int result = ioctl(fd, I2C_RDWR, &request);
    *error = error_of(result);
    return result;
}

/** Reads one register with I2C_RDWR and checks it succeeded; returns the value. */
static uint8_t read_register(int fd, uint8_t reg)
{
    uint8_t value = 0xAA;
    int error;
    int result = rdwr_read(fd, 0x53, reg, &value, 1, &error);
    CHECK(result == 2, "read of register %02x returned %d (%s)", reg, result, strerror(error));
    expect("RDWR n=2 w@53[%02x] r@53#1 -> ok", reg);
    return value;
}

static int rdwr_write(int fd, uint16_t address, uint8_t *bytes, uint16_t count, int *error)
{
    struct i2c_msg message = {.addr = address, .flags = 0, .len = count, .buf = bytes};
    struct i2c_rdwr_ioctl_data request = {.msgs = &message, .nmsgs = 1};
    int result = ioctl(fd, I2C_RDWR, &request);
    *error = error_of(result);
    return result;
}

static void write_register(int fd, uint8_t reg, uint8_t value)
{
    uint8_t bytes[2] = {reg, value};
    int error;
    int result = rdwr_write(fd, 0x53, bytes, 2, &error);
    CHECK(result == 1, "write of register %02x returned %d (%s)", reg, result, strerror(error));
    expect("RDWR n=1 w@53[%02x%02x] -> ok", reg, value);
}

static int smbus(int fd, uint8_t read_write, uint8_t command, uint32_t size, union i2c_smbus_data *data,
                 int *error)
{
    struct i2c_smbus_ioctl_data request = {
        .read_write = read_write, .command = command, .size = size, .data = data};
    int result = ioctl(fd, I2C_SMBUS, &request);
    *error = error_of(result);
    return result;
}

static int set_slave(int fd, unsigned long address, int *error)
{
    int result = ioctl(fd, I2C_SLAVE, address);
    *error = error_of(result);
    return result;
}

static unsigned long funcs(int fd)
{
    unsigned long mask = 0;
    int result = ioctl(fd, I2C_FUNCS, &mask);
    CHECK(result == 0, "I2C_FUNCS: %s", strerror(errno));
    expect("FUNCS -> 0x%lx", mask);
    return mask;
}

static void close_device(int fd)
{
    CHECK(close(fd) == 0, "close: %s", strerror(errno));
    expect("CLOSE");
    CHECK(fcntl(fd, F_GETFD) == -1 && errno == EBADF, "descriptor %d still open after close", fd);
}

#define CHECK_FAILS(result, error, wanted)                                                     \
    CHECK((result) == -1 && (error) == (wanted), "expected %s, got result %d errno %d (%s)",  \
          #wanted, (result), (error), strerror(error))

/* ---- threads ---- */

#define THREADS 8
#define READS_PER_THREAD 50

static void *reader(void *argument)
{
    int fd = *(const int *)argument;
    intptr_t bad = 0;
    for (int i = 0; i < READS_PER_THREAD; i++) {
        uint8_t data[6] = {0};
        int error;
        /* DEVID then the data registers: with one lock per transaction, every read sees its
         * own register pointer and nothing else's. */
        uint8_t devid = 0;
        if (rdwr_read(fd, 0x53, 0x00, &devid, 1, &error) != 2 || devid != 0xE5) {
            bad++;
        }
        if (rdwr_read(fd, 0x53, 0x32, data, 6, &error) != 2 || data[4] != 0x00 || data[5] != 0x01) {
            bad++;
        }
    }
    return (void *)bad;
}

/* ---- scenarios ---- */

static void scenario_default(void)
{
    int error;
    int result;

    /* open gives a real, close-on-exec descriptor */
    int fd = open_device(O_RDWR | O_CLOEXEC);
    expect("OPEN %s -> ok", device_path);
    int fd_flags = fcntl(fd, F_GETFD);
    CHECK(fd_flags >= 0 && (fd_flags & FD_CLOEXEC), "fake descriptor lacks FD_CLOEXEC (%d)", fd_flags);

    /* I2C_FUNCS */
    unsigned long mask = funcs(fd);
    unsigned long wanted = I2C_FUNC_I2C | I2C_FUNC_SMBUS_READ_I2C_BLOCK | I2C_FUNC_SMBUS_WRITE_I2C_BLOCK |
                           I2C_FUNC_SMBUS_BYTE_DATA;
    CHECK((mask & wanted) == wanted, "default mask 0x%lx lacks 0x%lx", mask, wanted);
    CHECK(mask == (unsigned long)(I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL), "default mask 0x%lx", mask);
    result = ioctl(fd, I2C_FUNCS, NULL);
    CHECK_FAILS(result, error_of(result), EFAULT);
    expect("FUNCS -> EFAULT");

    /* the register file's reset values */
    CHECK(read_register(fd, 0x00) == 0xE5, "DEVID");
    CHECK(read_register(fd, 0x2C) == 0x0A, "BW_RATE reset value");
    CHECK(read_register(fd, 0x2D) == 0x00, "POWER_CTL reset value");
    CHECK(read_register(fd, 0x30) == 0x02, "INT_SOURCE reset value");
    CHECK(read_register(fd, 0x39) == 0x00, "FIFO_STATUS in standby");
    CHECK(read_register(fd, 0x1D) == 0x00, "THRESH_TAP reset value");
    CHECK(read_register(fd, 0x45) == 0x00, "unimplemented register");

    /* the data registers, and auto-increment across a multi-byte read */
    uint8_t data[8];
    memset(data, 0xAA, sizeof data);
    result = rdwr_read(fd, 0x53, 0x32, data, 6, &error);
    CHECK(result == 2, "data read: %d %s", result, strerror(error));
    expect("RDWR n=2 w@53[32] r@53#6 -> ok");
    static const uint8_t flat[6] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
    CHECK(memcmp(data, flat, 6) == 0, "data %02x %02x %02x %02x %02x %02x", data[0], data[1], data[2],
          data[3], data[4], data[5]);
    CHECK(data[6] == 0xAA, "read wrote past its length");
    memset(data, 0xAA, sizeof data);
    result = rdwr_read(fd, 0x53, 0x2C, data, 2, &error);
    CHECK(result == 2 && data[0] == 0x0A && data[1] == 0x00, "BW_RATE+POWER_CTL: %02x %02x", data[0], data[1]);
    expect("RDWR n=2 w@53[2c] r@53#2 -> ok");

    /* writes store; Measure makes FIFO_STATUS report 8 entries and INT_SOURCE DATA_READY */
    write_register(fd, 0x31, 0x0B);
    CHECK(read_register(fd, 0x31) == 0x0B, "DATA_FORMAT after write");
    write_register(fd, 0x2D, 0x08);
    CHECK(read_register(fd, 0x2D) == 0x08, "POWER_CTL after write");
    CHECK(read_register(fd, 0x39) == 0x08, "FIFO_STATUS while measuring");
    CHECK(read_register(fd, 0x30) == 0x82, "INT_SOURCE while measuring");

    /* read-only registers ignore writes */
    write_register(fd, 0x00, 0x12);
    CHECK(read_register(fd, 0x00) == 0xE5, "DEVID is read-only");
    write_register(fd, 0x32, 0x12);
    CHECK(read_register(fd, 0x32) == 0x00, "DATAX0 is read-only");
    write_register(fd, 0x39, 0x12);
    CHECK(read_register(fd, 0x39) == 0x08, "FIFO_STATUS is read-only");

    /* a multi-byte write auto-increments */
    uint8_t offsets[4] = {0x1E, 0x01, 0x02, 0xFE};
    result = rdwr_write(fd, 0x53, offsets, 4, &error);
    CHECK(result == 1, "OFSX..OFSZ write: %s", strerror(error));
    expect("RDWR n=1 w@53[1e0102fe] -> ok");
    memset(data, 0, sizeof data);
    result = rdwr_read(fd, 0x53, 0x1E, data, 3, &error);
    CHECK(result == 2 && data[0] == 0x01 && data[1] == 0x02 && data[2] == 0xFE, "OFSX..OFSZ read back");
    expect("RDWR n=2 w@53[1e] r@53#3 -> ok");

    /* a write-only message sets the pointer; a later read-only transaction reads from it */
    uint8_t pointer = 0x2C;
    result = rdwr_write(fd, 0x53, &pointer, 1, &error);
    CHECK(result == 1, "pointer write: %s", strerror(error));
    expect("RDWR n=1 w@53[2c] -> ok");
    {
        uint8_t value = 0;
        struct i2c_msg message = {.addr = 0x53, .flags = I2C_M_RD, .len = 1, .buf = &value};
        struct i2c_rdwr_ioctl_data request = {.msgs = &message, .nmsgs = 1};
        result = ioctl(fd, I2C_RDWR, &request);
        CHECK(result == 1 && value == 0x0A, "read at the pointer: %d %02x", result, value);
        expect("RDWR n=1 r@53#1 -> ok");
    }

    /* the largest read: 8192 bytes, the 8-bit pointer wrapping every 256 */
    {
        static uint8_t big[8192];
        result = rdwr_read(fd, 0x53, 0x00, big, 8192, &error);
        CHECK(result == 2 && big[0] == 0xE5 && big[0x2C] == 0x0A && big[256] == 0xE5 && big[8191] == 0x00,
              "8192-byte read: %d %02x %02x", result, big[0], big[256]);
        expect("RDWR n=2 w@53[00] r@53#8192 -> ok");
    }

    /* wrong address: NACK, nothing read, nothing written */
    memset(data, 0xAA, sizeof data);
    result = rdwr_read(fd, 0x1D, 0x00, data, 1, &error);
    CHECK_FAILS(result, error, EREMOTEIO);
    CHECK(data[0] == 0xAA, "a NACKed read changed the buffer");
    expect("RDWR n=2 w@1d[00] r@1d#1 -> EREMOTEIO");
    {
        uint8_t reg = 0x2D;
        uint8_t value = 0xAA;
        struct i2c_msg messages[2] = {
            {.addr = 0x53, .flags = 0, .len = 1, .buf = &reg},
            {.addr = 0x54, .flags = I2C_M_RD, .len = 1, .buf = &value},
        };
        struct i2c_rdwr_ioctl_data request = {.msgs = messages, .nmsgs = 2};
        result = ioctl(fd, I2C_RDWR, &request);
        CHECK_FAILS(result, error_of(result), EREMOTEIO);
        CHECK(value == 0xAA, "a NACKed transaction read");
        expect("RDWR n=2 w@53[2d] r@54#1 -> EREMOTEIO");
    }
    uint8_t stray[2] = {0x2D, 0x00};
    result = rdwr_write(fd, 0x1D, stray, 2, &error);
    CHECK_FAILS(result, error, EREMOTEIO);
    expect("RDWR n=1 w@1d[2d00] -> EREMOTEIO");
    CHECK(read_register(fd, 0x2D) == 0x08, "a NACKed write stored");

    /* argument validation */
    {
        struct i2c_msg messages[43];
        uint8_t zero = 0;
        for (int i = 0; i < 43; i++) {
            messages[i] = (struct i2c_msg){.addr = 0x53, .flags = 0, .len = 0, .buf = &zero};
        }
        struct i2c_rdwr_ioctl_data request = {.msgs = messages, .nmsgs = 0};
        result = ioctl(fd, I2C_RDWR, &request);
        CHECK_FAILS(result, error_of(result), EINVAL);
        expect("RDWR n=0 -> EINVAL");

        request.nmsgs = 43;
        result = ioctl(fd, I2C_RDWR, &request);
        CHECK_FAILS(result, error_of(result), EINVAL);
        expect("RDWR n=43 -> EINVAL");

        request.nmsgs = 42; /* the limit: 42 zero-length writes, an address probe each */
        result = ioctl(fd, I2C_RDWR, &request);
        CHECK(result == 42, "42 messages: %d %s", result, strerror(errno));
        char line[1024];
        int used = snprintf(line, sizeof line, "RDWR n=42");
        for (int i = 0; i < 42; i++) {
            used += snprintf(line + used, sizeof line - (size_t)used, " w@53[]");
        }
        expect("%s -> ok", line);

        request.msgs = NULL;
        request.nmsgs = 2;
        result = ioctl(fd, I2C_RDWR, &request);
        CHECK_FAILS(result, error_of(result), EINVAL);
        expect("RDWR n=2 -> EINVAL");
    }
    result = rdwr_read(fd, 0x53, 0x00, data, 0, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("RDWR n=2 w@53[00] r@53#0 -> EINVAL");
    {
        static uint8_t big[8193];
        result = rdwr_read(fd, 0x53, 0x00, big, 8193, &error);
        CHECK_FAILS(result, error, EINVAL);
        expect("RDWR n=2 w@53[00] r@53#8193 -> EINVAL");
    }
    {
        uint8_t reg = 0x00;
        struct i2c_msg messages[2] = {
            {.addr = 0x53, .flags = 0, .len = 1, .buf = &reg},
            {.addr = 0x53, .flags = I2C_M_RD, .len = 4, .buf = NULL},
        };
        struct i2c_rdwr_ioctl_data request = {.msgs = messages, .nmsgs = 2};
        result = ioctl(fd, I2C_RDWR, &request);
        CHECK_FAILS(result, error_of(result), EFAULT);
        expect("RDWR n=2 w@53[00] r@53#4 -> EFAULT");

        uint8_t value = 0;
        messages[1] = (struct i2c_msg){.addr = 0x53, .flags = I2C_M_RD | I2C_M_TEN, .len = 1, .buf = &value};
        result = ioctl(fd, I2C_RDWR, &request);
        CHECK_FAILS(result, error_of(result), EOPNOTSUPP);
        expect("RDWR n=2 w@53[00] r@53#1{flags=0x0011} -> EOPNOTSUPP");
    }
    result = ioctl(fd, I2C_RDWR, NULL);
    CHECK_FAILS(result, error_of(result), EFAULT);
    expect("RDWR -> EFAULT");

    /* a long write shows its first 64 bytes; from 0x40 on, writes are ignored */
    {
        uint8_t long_write[70];
        memset(long_write, 0, sizeof long_write);
        long_write[0] = 0x40;
        result = rdwr_write(fd, 0x53, long_write, sizeof long_write, &error);
        CHECK(result == 1, "long write: %s", strerror(error));
        char hex[200] = "40";
        for (int i = 1; i < 64; i++) {
            strcat(hex, "00");
        }
        expect("RDWR n=1 w@53[%s..] -> ok", hex);
    }

    /* I2C_SLAVE */
    result = set_slave(fd, 0x53, &error);
    CHECK(result == 0, "I2C_SLAVE 0x53: %s", strerror(error));
    expect("SLAVE 53 -> ok");
    result = ioctl(fd, I2C_SLAVE, 0x1D); /* an int literal, as much C code passes it */
    CHECK(result == 0, "I2C_SLAVE 0x1d: %s", strerror(errno));
    expect("SLAVE 1d -> ok");
    result = set_slave(fd, 0x80, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("SLAVE 80 -> EINVAL");

    /* SMBus on a second descriptor: the slave address is per descriptor and starts unset */
    int fd2 = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    CHECK(fd2 != fd, "two opens gave one descriptor");
    union i2c_smbus_data block;
    memset(&block, 0, sizeof block);
    block.block[0] = 6;
    result = smbus(fd2, I2C_SMBUS_READ, 0x32, I2C_SMBUS_I2C_BLOCK_DATA, &block, &error);
    CHECK_FAILS(result, error, EREMOTEIO);
    CHECK(block.block[0] == 6, "a failed read changed block[0]");
    expect("SMBUS read cmd=32 size=I2C_BLOCK len=6 -> EREMOTEIO");
    result = set_slave(fd2, 0x53, &error);
    CHECK(result == 0, "I2C_SLAVE: %s", strerror(error));
    expect("SLAVE 53 -> ok");

    memset(&block, 0xAA, sizeof block);
    block.block[0] = 6;
    result = smbus(fd2, I2C_SMBUS_READ, 0x32, I2C_SMBUS_I2C_BLOCK_DATA, &block, &error);
    CHECK(result == 0, "SMBus block read: %s", strerror(error));
    CHECK(block.block[0] == 6 && memcmp(block.block + 1, flat, 6) == 0, "SMBus block read data");
    CHECK(block.block[7] == 0xAA, "bytes past the length are the caller's, as the kernel leaves them");
    expect("SMBUS read cmd=32 size=I2C_BLOCK len=6 -> ok");

    memset(&block, 0, sizeof block);
    block.block[0] = 32;
    result = smbus(fd2, I2C_SMBUS_READ, 0x00, I2C_SMBUS_I2C_BLOCK_DATA, &block, &error);
    /* registers 0x00...0x1F: DEVID, reserved zeros, then OFSX/OFSY as written above */
    CHECK(result == 0 && block.block[0] == 32 && block.block[1] == 0xE5 && block.block[2] == 0x00 &&
              block.block[31] == 0x01 && block.block[32] == 0x02,
          "32-byte SMBus block read: %02x %02x %02x", block.block[1], block.block[31], block.block[32]);
    expect("SMBUS read cmd=00 size=I2C_BLOCK len=32 -> ok");

    /* the bug class this catches: block[0] left 0 (or too large) */
    memset(&block, 0, sizeof block);
    result = smbus(fd2, I2C_SMBUS_READ, 0x32, I2C_SMBUS_I2C_BLOCK_DATA, &block, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("SMBUS read cmd=32 size=I2C_BLOCK len=0 -> EINVAL");
    block.block[0] = 33;
    result = smbus(fd2, I2C_SMBUS_READ, 0x32, I2C_SMBUS_I2C_BLOCK_DATA, &block, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("SMBUS read cmd=32 size=I2C_BLOCK len=33 -> EINVAL");

    /* byte data */
    union i2c_smbus_data byte;
    byte.byte = 0x0A;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x2C, I2C_SMBUS_BYTE_DATA, &byte, &error);
    CHECK(result == 0, "SMBus byte write: %s", strerror(error));
    expect("SMBUS write cmd=2c size=BYTE_DATA val=0a -> ok");
    byte.byte = 0x08;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x2D, I2C_SMBUS_BYTE_DATA, &byte, &error);
    CHECK(result == 0, "SMBus byte write: %s", strerror(error));
    expect("SMBUS write cmd=2d size=BYTE_DATA val=08 -> ok");
    byte.byte = 0;
    result = smbus(fd2, I2C_SMBUS_READ, 0x2D, I2C_SMBUS_BYTE_DATA, &byte, &error);
    CHECK(result == 0 && byte.byte == 0x08, "SMBus byte read: %d %02x", result, byte.byte);
    expect("SMBUS read cmd=2d size=BYTE_DATA -> ok");
    /* the register file is the chip's, shared by every descriptor */
    CHECK(read_register(fd, 0x2D) == 0x08, "POWER_CTL seen through the other descriptor");

    /* word data, little-endian like the chip's data registers */
    union i2c_smbus_data word;
    word.word = 0;
    result = smbus(fd2, I2C_SMBUS_READ, 0x36, I2C_SMBUS_WORD_DATA, &word, &error);
    CHECK(result == 0 && word.word == 0x0100, "SMBus word read: %04x", word.word);
    expect("SMBUS read cmd=36 size=WORD_DATA -> ok");
    word.word = 0x0403;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x1E, I2C_SMBUS_WORD_DATA, &word, &error);
    CHECK(result == 0, "SMBus word write: %s", strerror(error));
    expect("SMBUS write cmd=1e size=WORD_DATA val=0403 -> ok");
    CHECK(read_register(fd, 0x1E) == 0x03 && read_register(fd, 0x1F) == 0x04, "word write stored LE");

    /* I²C block write */
    memset(&block, 0, sizeof block);
    block.block[0] = 3;
    block.block[1] = 0x07;
    block.block[2] = 0x08;
    block.block[3] = 0x09;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x1E, I2C_SMBUS_I2C_BLOCK_DATA, &block, &error);
    CHECK(result == 0, "SMBus block write: %s", strerror(error));
    expect("SMBUS write cmd=1e size=I2C_BLOCK len=3 data=070809 -> ok");
    memset(data, 0, sizeof data);
    result = rdwr_read(fd, 0x53, 0x1E, data, 3, &error);
    CHECK(result == 2 && data[0] == 0x07 && data[1] == 0x08 && data[2] == 0x09, "block write stored");
    expect("RDWR n=2 w@53[1e] r@53#3 -> ok");
    block.block[0] = 0;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x1E, I2C_SMBUS_I2C_BLOCK_DATA, &block, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("SMBUS write cmd=1e size=I2C_BLOCK len=0 data= -> EINVAL");

    /* byte (no command byte on the wire for reads), quick */
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x00, I2C_SMBUS_BYTE, NULL, &error);
    CHECK(result == 0, "SMBus byte write: %s", strerror(error));
    expect("SMBUS write cmd=00 size=BYTE -> ok");
    byte.byte = 0;
    result = smbus(fd2, I2C_SMBUS_READ, 0x00, I2C_SMBUS_BYTE, &byte, &error);
    CHECK(result == 0 && byte.byte == 0xE5, "SMBus receive byte: %02x", byte.byte);
    expect("SMBUS read cmd=00 size=BYTE -> ok");
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x00, I2C_SMBUS_QUICK, NULL, &error);
    CHECK(result == 0, "SMBus quick: %s", strerror(error));
    expect("SMBUS write cmd=00 size=QUICK -> ok");

    /* SMBus block write (the count goes on the wire), process call, the broken I²C block size */
    memset(&block, 0, sizeof block);
    block.block[0] = 2;
    block.block[1] = 0x05;
    block.block[2] = 0x06;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x1E, I2C_SMBUS_BLOCK_DATA, &block, &error);
    CHECK(result == 0, "SMBus block write: %s", strerror(error));
    expect("SMBUS write cmd=1e size=BLOCK len=2 data=0506 -> ok");
    CHECK(read_register(fd, 0x1E) == 0x02 && read_register(fd, 0x1F) == 0x05 && read_register(fd, 0x20) == 0x06,
          "SMBus block write stores count then data");
    word.word = 0x0A0B;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x1E, I2C_SMBUS_PROC_CALL, &word, &error);
    CHECK(result == 0 && word.word == 0x0006, "process call: %s %04x", strerror(error), word.word);
    expect("SMBUS write cmd=1e size=PROC_CALL val=0a0b -> ok");
    CHECK(read_register(fd, 0x1E) == 0x0B && read_register(fd, 0x1F) == 0x0A, "process call wrote its word");
    memset(&block, 0, sizeof block);
    block.block[0] = 1;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x1E, I2C_SMBUS_BLOCK_PROC_CALL, &block, &error);
    CHECK_FAILS(result, error, EOPNOTSUPP);
    expect("SMBUS write cmd=1e size=BLOCK_PROC_CALL len=1 data=00 -> EOPNOTSUPP");
    memset(&block, 0, sizeof block);
    result = smbus(fd2, I2C_SMBUS_READ, 0x00, I2C_SMBUS_I2C_BLOCK_BROKEN, &block, &error);
    CHECK(result == 0 && block.block[0] == 32 && block.block[1] == 0xE5, "broken I2C block read");
    expect("SMBUS read cmd=00 size=I2C_BLOCK_BROKEN len=32 -> ok");

    /* SMBus argument errors and sizes the default adapter lacks */
    result = smbus(fd2, I2C_SMBUS_READ, 0x00, I2C_SMBUS_BYTE_DATA, NULL, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("SMBUS read cmd=00 size=BYTE_DATA -> EINVAL");
    result = smbus(fd2, I2C_SMBUS_READ, 0x00, 99, &byte, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("SMBUS read cmd=00 size=99 -> EINVAL");
    result = smbus(fd2, 5, 0x00, I2C_SMBUS_BYTE_DATA, &byte, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("SMBUS rw=5 cmd=00 size=BYTE_DATA -> EINVAL");
    result = smbus(fd2, I2C_SMBUS_READ, 0x00, I2C_SMBUS_BLOCK_DATA, &block, &error);
    CHECK_FAILS(result, error, EOPNOTSUPP);
    expect("SMBUS read cmd=00 size=BLOCK -> EOPNOTSUPP");
    result = ioctl(fd2, I2C_SMBUS, NULL);
    CHECK_FAILS(result, error_of(result), EFAULT);
    expect("SMBUS -> EFAULT");

    /* SMBus to another address: NACK */
    result = set_slave(fd2, 0x1D, &error);
    CHECK(result == 0, "I2C_SLAVE 0x1d: %s", strerror(error));
    expect("SLAVE 1d -> ok");
    byte.byte = 0x00;
    result = smbus(fd2, I2C_SMBUS_WRITE, 0x2D, I2C_SMBUS_BYTE_DATA, &byte, &error);
    CHECK_FAILS(result, error, EREMOTEIO);
    expect("SMBUS write cmd=2d size=BYTE_DATA val=00 -> EREMOTEIO");

    /* anything else is ENOTTY */
    result = ioctl(fd, I2C_TIMEOUT, 10UL);
    CHECK_FAILS(result, error_of(result), ENOTTY);
    expect("IOCTL 0x702 -> ENOTTY");
    result = ioctl(fd, I2C_SLAVE_FORCE, 0x53UL);
    CHECK_FAILS(result, error_of(result), ENOTTY);
    expect("IOCTL 0x706 -> ENOTTY");

    /* read(2)/write(2) are not emulated: they fail instead of pretending */
    char byte_buffer[4] = {0};
    CHECK(read(fd, byte_buffer, 1) == -1 && errno == EBADF, "read(2) on the fake descriptor");
    CHECK(write(fd, byte_buffer, 1) == -1 && errno == EBADF, "write(2) on the fake descriptor");

    /* concurrent transactions on one descriptor */
    {
        pthread_t threads[THREADS];
        for (int i = 0; i < THREADS; i++) {
            CHECK(pthread_create(&threads[i], NULL, reader, &fd) == 0, "pthread_create");
        }
        intptr_t bad = 0;
        for (int i = 0; i < THREADS; i++) {
            void *outcome = NULL;
            pthread_join(threads[i], &outcome);
            bad += (intptr_t)outcome;
        }
        CHECK(bad == 0, "%ld concurrent reads went wrong", (long)bad);
        /* The two line kinds interleave across threads; compare them as a multiset below. */
    }

    close_device(fd2);
    close_device(fd);
    /* a closed fake descriptor is just a closed descriptor */
    result = ioctl(fd, I2C_FUNCS, &mask);
    CHECK_FAILS(result, error_of(result), EBADF);

    /* openat(2) and open64(2) reach the fake too */
    int fd3 = openat(AT_FDCWD, device_path, O_RDWR);
    CHECK(fd3 >= 0, "openat: %s", strerror(errno));
    expect("OPEN %s -> ok", device_path);
    funcs(fd3);
    close_device(fd3);
    int fd4 = open64(device_path, O_RDWR);
    CHECK(fd4 >= 0, "open64: %s", strerror(errno));
    expect("OPEN %s -> ok", device_path);
    close_device(fd4);

    /* a fake descriptor replaced behind the library's back (dup2) is forgotten, not faked */
    int fd5 = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    int pipe_fds[2];
    CHECK(pipe(pipe_fds) == 0, "pipe");
    CHECK(write(pipe_fds[1], "hello", 5) == 5, "pipe write");
    CHECK(dup2(pipe_fds[0], fd5) == fd5, "dup2");
    int pending = 0;
    CHECK(ioctl(fd5, FIONREAD, &pending) == 0 && pending == 5, "FIONREAD through the replaced fd: %d", pending);
    CHECK(close(fd5) == 0, "close replaced fd"); /* no CLOSE line: it was not the fake any more */

    /* every other descriptor passes straight through */
    pending = 0;
    CHECK(ioctl(pipe_fds[0], FIONREAD, &pending) == 0 && pending == 5, "FIONREAD on a pipe: %d", pending);
    int null_fd = open("/dev/null", O_RDWR);
    CHECK(null_fd >= 0, "open /dev/null");
    unsigned long ignored = 0;
    CHECK(ioctl(null_fd, I2C_FUNCS, &ignored) == -1 && errno == ENOTTY, "real /dev/null: %s", strerror(errno));
    close(null_fd);
    close(pipe_fds[0]);
    close(pipe_fds[1]);

    /* the log: the sequential part exactly, then the threads' lines as a multiset */
    FILE *file = fopen(log_path, "r");
    CHECK(file != NULL, "log %s: %s", log_path, strerror(errno));
    if (file == NULL) {
        return;
    }
    /* Split expectations at the threads: everything from "CLOSE" of fd2 on came after them. */
    size_t before_threads = 0;
    for (size_t i = 0; i < expected_count; i++) {
        if (strcmp(expected[i], "IOCTL 0x706 -> ENOTTY") == 0) {
            before_threads = i + 1;
        }
    }
    char *actual = NULL;
    size_t capacity = 0;
    ssize_t length;
    size_t index = 0;
    size_t thread_devid = 0;
    size_t thread_data = 0;
    size_t after = before_threads;
    while ((length = getline(&actual, &capacity, file)) >= 0) {
        if (length > 0 && actual[length - 1] == '\n') {
            actual[length - 1] = '\0';
        }
        size_t expected_index;
        if (index < before_threads) {
            expected_index = index;
        } else if (index < before_threads + THREADS * READS_PER_THREAD * 2) {
            if (strcmp(actual, "RDWR n=2 w@53[00] r@53#1 -> ok") == 0) {
                thread_devid++;
            } else if (strcmp(actual, "RDWR n=2 w@53[32] r@53#6 -> ok") == 0) {
                thread_data++;
            } else {
                CHECK(0, "log line %zu from the threads: %s", index + 1, actual);
            }
            index++;
            continue;
        } else {
            expected_index = after++;
        }
        if (expected_index < expected_count) {
            CHECK(strcmp(actual, expected[expected_index]) == 0, "log line %zu:\n  expected: %s\n  actual:   %s",
                  index + 1, expected[expected_index], actual);
        } else {
            CHECK(0, "unexpected log line %zu: %s", index + 1, actual);
        }
        index++;
    }
    CHECK(thread_devid == THREADS * READS_PER_THREAD && thread_data == THREADS * READS_PER_THREAD,
          "thread lines: %zu DEVID, %zu data", thread_devid, thread_data);
    CHECK(after == expected_count, "log ended early: %zu of %zu expected lines after the threads", after,
          expected_count);
    free(actual);
    fclose(file);
    log_checked = 1;
}

/* PLUMB_FAKE_I2C_FUNCS=0x0eff0008: SMBus only, I2C_RDWR is EOPNOTSUPP. */
static void scenario_smbus_only(void)
{
    int error;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    unsigned long mask = funcs(fd);
    CHECK(mask == 0x0eff0008UL, "mask 0x%lx", mask);
    uint8_t value = 0;
    int result = rdwr_read(fd, 0x53, 0x00, &value, 1, &error);
    CHECK_FAILS(result, error, EOPNOTSUPP);
    expect("RDWR n=2 w@53[00] r@53#1 -> EOPNOTSUPP");
    /* argument errors still come first, as in the kernel */
    result = rdwr_read(fd, 0x53, 0x00, &value, 0, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("RDWR n=2 w@53[00] r@53#0 -> EINVAL");
    CHECK(set_slave(fd, 0x53, &error) == 0, "I2C_SLAVE");
    expect("SLAVE 53 -> ok");
    union i2c_smbus_data data;
    memset(&data, 0, sizeof data);
    data.block[0] = 1;
    result = smbus(fd, I2C_SMBUS_READ, 0x00, I2C_SMBUS_I2C_BLOCK_DATA, &data, &error);
    CHECK(result == 0 && data.block[0] == 1 && data.block[1] == 0xE5, "DEVID over SMBus");
    expect("SMBUS read cmd=00 size=I2C_BLOCK len=1 -> ok");
    data.byte = 0x08;
    result = smbus(fd, I2C_SMBUS_WRITE, 0x2D, I2C_SMBUS_BYTE_DATA, &data, &error);
    CHECK(result == 0, "byte write: %s", strerror(error));
    expect("SMBUS write cmd=2d size=BYTE_DATA val=08 -> ok");
    memset(&data, 0, sizeof data);
    data.block[0] = 1;
    result = smbus(fd, I2C_SMBUS_READ, 0x39, I2C_SMBUS_I2C_BLOCK_DATA, &data, &error);
    CHECK(result == 0 && data.block[1] == 0x08, "FIFO_STATUS over SMBus: %02x", data.block[1]);
    expect("SMBUS read cmd=39 size=I2C_BLOCK len=1 -> ok");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_FUNCS=0x0fff8009 (EMUL_ALL): SMBus block reads, where the chip sends the count. */
static void scenario_smbus_block(void)
{
    int error;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    CHECK(funcs(fd) == 0x0fff8009UL, "mask");
    CHECK(set_slave(fd, 0x53, &error) == 0, "I2C_SLAVE");
    expect("SLAVE 53 -> ok");
    union i2c_smbus_data data;
    memset(&data, 0xAA, sizeof data);
    int result = smbus(fd, I2C_SMBUS_READ, 0x2C, I2C_SMBUS_BLOCK_DATA, &data, &error);
    /* BW_RATE (0x0A) is taken for the count: 10 bytes from 0x2D follow */
    CHECK(result == 0 && data.block[0] == 10 && data.block[1] == 0x00 && data.block[5] == 0x00 &&
              data.block[6] == 0x00 && data.block[7] == 0x00 && data.block[10] == 0x00 && data.block[11] == 0xAA,
          "SMBus block read: %d %u", result, data.block[0]);
    expect("SMBUS read cmd=2c size=BLOCK -> ok");
    result = smbus(fd, I2C_SMBUS_READ, 0x00, I2C_SMBUS_BLOCK_DATA, &data, &error);
    CHECK_FAILS(result, error, EPROTO); /* DEVID 0xE5 is no valid count */
    expect("SMBUS read cmd=00 size=BLOCK -> EPROTO");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_FUNCS=1572864 (decimal 0x180000, byte data only): no I²C-block reads. */
static void scenario_byte_data_only(void)
{
    int error;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    CHECK(funcs(fd) == 0x180000UL, "mask");
    CHECK(set_slave(fd, 0x53, &error) == 0, "I2C_SLAVE");
    expect("SLAVE 53 -> ok");
    union i2c_smbus_data data;
    memset(&data, 0, sizeof data);
    data.block[0] = 6;
    int result = smbus(fd, I2C_SMBUS_READ, 0x32, I2C_SMBUS_I2C_BLOCK_DATA, &data, &error);
    CHECK_FAILS(result, error, EOPNOTSUPP);
    expect("SMBUS read cmd=32 size=I2C_BLOCK len=6 -> EOPNOTSUPP");
    result = smbus(fd, I2C_SMBUS_READ, 0x00, I2C_SMBUS_BYTE_DATA, &data, &error);
    CHECK(result == 0 && data.byte == 0xE5, "byte read");
    expect("SMBUS read cmd=00 size=BYTE_DATA -> ok");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_FAULT=nack (and PLUMB_FAKE_I2C_NACK_ERRNO, if set, in `nack_errno`). */
static void run_every_transfer_fails(int wanted)
{
    char name[32];
    switch (wanted) {
    case EREMOTEIO: strcpy(name, "EREMOTEIO"); break;
    case ENXIO: strcpy(name, "ENXIO"); break;
    default: strcpy(name, "EIO"); break;
    }
    int error;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    funcs(fd); /* not a transfer: still works */
    uint8_t value = 0xAA;
    int result = rdwr_read(fd, 0x53, 0x00, &value, 1, &error);
    CHECK(result == -1 && error == wanted, "read: %d %s", result, strerror(error));
    CHECK(value == 0xAA, "a failed read wrote its buffer");
    expect("RDWR n=2 w@53[00] r@53#1 -> %s", name);
    uint8_t bytes[2] = {0x2D, 0x08};
    result = rdwr_write(fd, 0x53, bytes, 2, &error);
    CHECK(result == -1 && error == wanted, "write: %d %s", result, strerror(error));
    expect("RDWR n=1 w@53[2d08] -> %s", name);
    CHECK(set_slave(fd, 0x53, &error) == 0, "I2C_SLAVE is no transfer");
    expect("SLAVE 53 -> ok");
    union i2c_smbus_data data;
    memset(&data, 0, sizeof data);
    data.block[0] = 6;
    result = smbus(fd, I2C_SMBUS_READ, 0x32, I2C_SMBUS_I2C_BLOCK_DATA, &data, &error);
    CHECK(result == -1 && error == wanted, "SMBus read: %d %s", result, strerror(error));
    expect("SMBUS read cmd=32 size=I2C_BLOCK len=6 -> %s", name);
    /* validation still comes first */
    data.block[0] = 0;
    result = smbus(fd, I2C_SMBUS_READ, 0x32, I2C_SMBUS_I2C_BLOCK_DATA, &data, &error);
    CHECK_FAILS(result, error, EINVAL);
    expect("SMBUS read cmd=32 size=I2C_BLOCK len=0 -> EINVAL");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_FAULT=eio-after:3 */
static void scenario_eio_after(void)
{
    int error;
    uint8_t value;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    funcs(fd);
    CHECK(read_register(fd, 0x00) == 0xE5, "transfer 1"); /* 1 */
    int result = rdwr_read(fd, 0x53, 0x00, &value, 0, &error); /* invalid: not a transfer */
    CHECK_FAILS(result, error, EINVAL);
    expect("RDWR n=2 w@53[00] r@53#0 -> EINVAL");
    CHECK(set_slave(fd, 0x53, &error) == 0, "I2C_SLAVE");  /* not a transfer */
    expect("SLAVE 53 -> ok");
    union i2c_smbus_data data;
    data.byte = 0x08;
    result = smbus(fd, I2C_SMBUS_WRITE, 0x2D, I2C_SMBUS_BYTE_DATA, &data, &error); /* 2 */
    CHECK(result == 0, "transfer 2: %s", strerror(error));
    expect("SMBUS write cmd=2d size=BYTE_DATA val=08 -> ok");
    result = rdwr_read(fd, 0x1D, 0x00, &value, 1, &error); /* 3: reaches the bus, NACKed */
    CHECK_FAILS(result, error, EREMOTEIO);
    expect("RDWR n=2 w@1d[00] r@1d#1 -> EREMOTEIO");
    result = rdwr_read(fd, 0x53, 0x00, &value, 1, &error); /* 4 */
    CHECK_FAILS(result, error, EIO);
    expect("RDWR n=2 w@53[00] r@53#1 -> EIO");
    result = smbus(fd, I2C_SMBUS_READ, 0x2D, I2C_SMBUS_BYTE_DATA, &data, &error); /* 5 */
    CHECK_FAILS(result, error, EIO);
    expect("SMBUS read cmd=2d size=BYTE_DATA -> EIO");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_OPEN_ERRNO=13 (or EACCES) */
static void scenario_open_errno(int wanted, const char *name)
{
    int fd = open(device_path, O_RDWR | O_CLOEXEC);
    CHECK(fd == -1 && errno == wanted, "open: %d %s", fd, strerror(errno));
    expect("OPEN %s -> %s", device_path, name);
    fd = openat(AT_FDCWD, device_path, O_RDONLY);
    CHECK(fd == -1 && errno == wanted, "openat: %d %s", fd, strerror(errno));
    expect("OPEN %s -> %s", device_path, name);
}

/* PLUMB_FAKE_I2C_ADDR=0x1d PLUMB_FAKE_I2C_NACK_ERRNO=6 */
static void scenario_address(void)
{
    int error;
    uint8_t value = 0;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    int result = rdwr_read(fd, 0x53, 0x00, &value, 1, &error);
    CHECK_FAILS(result, error, ENXIO);
    expect("RDWR n=2 w@53[00] r@53#1 -> ENXIO");
    result = rdwr_read(fd, 0x1D, 0x00, &value, 1, &error);
    CHECK(result == 2 && value == 0xE5, "read at 0x1d: %d %s", result, strerror(error));
    expect("RDWR n=2 w@1d[00] r@1d#1 -> ok");
    CHECK(set_slave(fd, 0x53, &error) == 0, "I2C_SLAVE");
    expect("SLAVE 53 -> ok");
    union i2c_smbus_data data;
    result = smbus(fd, I2C_SMBUS_READ, 0x00, I2C_SMBUS_BYTE_DATA, &data, &error);
    CHECK_FAILS(result, error, ENXIO);
    expect("SMBUS read cmd=00 size=BYTE_DATA -> ENXIO");
    CHECK(set_slave(fd, 0x1D, &error) == 0, "I2C_SLAVE");
    expect("SLAVE 1d -> ok");
    result = smbus(fd, I2C_SMBUS_READ, 0x00, I2C_SMBUS_BYTE_DATA, &data, &error);
    CHECK(result == 0 && data.byte == 0xE5, "SMBus read at 0x1d");
    expect("SMBUS read cmd=00 size=BYTE_DATA -> ok");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_DEVID=0x00 PLUMB_FAKE_I2C_XYZ=-1,32767,-32768 */
static void scenario_chip(void)
{
    int error;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    CHECK(read_register(fd, 0x00) == 0x00, "DEVID override");
    uint8_t data[6];
    int result = rdwr_read(fd, 0x53, 0x32, data, 6, &error);
    static const uint8_t wanted[6] = {0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x80};
    CHECK(result == 2 && memcmp(data, wanted, 6) == 0, "XYZ override: %02x %02x %02x %02x %02x %02x",
          data[0], data[1], data[2], data[3], data[4], data[5]);
    expect("RDWR n=2 w@53[32] r@53#6 -> ok");
    close_device(fd);
}

/** One I2C_RDWR of `count` runs, each a write of its register then a read of `lengths[i]`
 *  bytes into `buffers[i]`. Appends the expected log line for a successful transfer. */
#define MAX_RUNS 21
static int rdwr_runs(int fd, const uint8_t *registers, const uint16_t *lengths, uint8_t **buffers,
                     size_t count, int *error)
{
    uint8_t pointers[MAX_RUNS];
    struct i2c_msg messages[2 * MAX_RUNS];
    for (size_t i = 0; i < count; i++) {
        pointers[i] = registers[i];
        messages[2 * i] = (struct i2c_msg){.addr = 0x53, .flags = 0, .len = 1, .buf = &pointers[i]};
        messages[2 * i + 1] = (struct i2c_msg){.addr = 0x53, .flags = I2C_M_RD, .len = lengths[i], .buf = buffers[i]};
    }
    struct i2c_rdwr_ioctl_data request = {.msgs = messages, .nmsgs = (uint32_t)(2 * count)};
    int result = ioctl(fd, I2C_RDWR, &request);
    *error = error_of(result);
    return result;
}

/** The log line of a successful rdwr_runs(). */
static void expect_runs(const uint8_t *registers, const uint16_t *lengths, size_t count)
{
    char line[2048];
    int used = snprintf(line, sizeof line, "RDWR n=%zu", 2 * count);
    for (size_t i = 0; i < count && used > 0 && (size_t)used < sizeof line; i++) {
        used += snprintf(line + used, sizeof line - (size_t)used, " w@53[%02x] r@53#%u", registers[i],
                         (unsigned)lengths[i]);
    }
    expect("%s -> ok", line);
}

static void sleep_ms(long milliseconds)
{
    struct timespec request = {.tv_sec = milliseconds / 1000, .tv_nsec = (milliseconds % 1000) * 1000000L};
    while (nanosleep(&request, &request) != 0 && errno == EINTR) {
    }
}

/** The x counts of six data bytes. */
static int x_of(const uint8_t *data) { return (int16_t)(uint16_t)(data[0] | (data[1] << 8)); }

/* PLUMB_FAKE_I2C_FIFO=timed: entries arrive at BW_RATE's rate from Measure, each data read pops
 * one, x counts the serial; FIFO_STATUS, INT_SOURCE's OVERRUN and bypass behave as on the chip. */
static void scenario_timed_fifo(void)
{
    int error;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    CHECK(read_register(fd, 0x39) == 0, "nothing before Measure");

    /* 50 Hz, stream: samples at 21.1, 41.1, 61.1 ms after Measure. */
    write_register(fd, 0x2c, 0x09);
    write_register(fd, 0x38, 0x80);
    write_register(fd, 0x2d, 0x08);
    sleep_ms(70);
    int entries = read_register(fd, 0x39);
    CHECK(entries >= 3 && entries <= 6, "entries after 70 ms at 50 Hz: %d", entries);
    /* One more entry read than there are: the last finds the FIFO empty and repeats the last
     * entry, unless a sample arrived meanwhile. */
    uint8_t registers[MAX_RUNS];
    uint16_t lengths[MAX_RUNS];
    uint8_t data[MAX_RUNS][6];
    uint8_t *buffers[MAX_RUNS];
    size_t runs = (size_t)entries + 2;
    for (size_t i = 0; i + 1 < runs; i++) {
        registers[i] = 0x32;
        lengths[i] = 6;
        buffers[i] = data[i];
    }
    uint8_t status = 0xAA;
    registers[runs - 1] = 0x39;
    lengths[runs - 1] = 1;
    buffers[runs - 1] = &status;
    int result = rdwr_runs(fd, registers, lengths, buffers, runs, &error);
    CHECK(result == (int)(2 * runs), "batch of %zu runs: %d (%s)", runs, result, strerror(error));
    expect_runs(registers, lengths, runs);
    for (int i = 0; i < entries; i++) {
        CHECK(x_of(data[i]) == i, "entry %d has serial %d", i, x_of(data[i]));
        CHECK(data[i][4] == 0x00 && data[i][5] == 0x01, "z of entry %d", i);
    }
    int extra = x_of(data[entries]);
    CHECK((extra == entries - 1 && status == 0) || extra == entries, "the read past the end: %d, status %u", extra,
          (unsigned)status);

    /* 800 Hz for 100 ms: full, OVERRUN set, and cleared by the next data read. */
    write_register(fd, 0x2d, 0x00);
    write_register(fd, 0x38, 0x00);
    CHECK(read_register(fd, 0x39) == 0, "bypass empties the FIFO");
    write_register(fd, 0x2c, 0x0d);
    write_register(fd, 0x38, 0x80);
    write_register(fd, 0x2d, 0x08);
    sleep_ms(100);
    CHECK(read_register(fd, 0x39) == 33, "a full FIFO holds 33");
    uint8_t before = 0, sample[6], after = 0;
    uint8_t overrun_registers[3] = {0x30, 0x32, 0x30};
    uint16_t overrun_lengths[3] = {1, 6, 1};
    uint8_t *overrun_buffers[3] = {&before, sample, &after};
    result = rdwr_runs(fd, overrun_registers, overrun_lengths, overrun_buffers, 3, &error);
    CHECK(result == 6, "INT_SOURCE, entry, INT_SOURCE: %d (%s)", result, strerror(error));
    expect_runs(overrun_registers, overrun_lengths, 3);
    CHECK((before & 0x01) != 0, "OVERRUN while full: INT_SOURCE %02x", before);
    CHECK((after & 0x01) == 0 || (after & 0x80) != 0, "OVERRUN cleared by the data read: %02x", after);

    /* Standby keeps the entries and makes no more. */
    write_register(fd, 0x2d, 0x00);
    int kept = read_register(fd, 0x39);
    sleep_ms(20);
    CHECK(read_register(fd, 0x39) == kept, "standby makes no samples");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_RDWR_READS=last: like i2c-bcm2835, one read message, and that one last. */
static void scenario_one_read_last(void)
{
    int error;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    uint8_t registers[2] = {0x00, 0x39};
    uint16_t lengths[2] = {1, 1};
    uint8_t devid = 0, status = 0;
    uint8_t *buffers[2] = {&devid, &status};
    int result = rdwr_runs(fd, registers, lengths, buffers, 2, &error);
    CHECK_FAILS(result, error, EOPNOTSUPP);
    expect("RDWR n=4 w@53[00] r@53#1 w@53[39] r@53#1 -> EOPNOTSUPP");
    CHECK(read_register(fd, 0x00) == 0xE5, "one read, last, works");
    /* Two writes then a read: the read is last, so it is carried. */
    uint8_t first[2] = {0x1e, 0x05}, second = 0x1e, value = 0;
    struct i2c_msg messages[3] = {
        {.addr = 0x53, .flags = 0, .len = 2, .buf = first},
        {.addr = 0x53, .flags = 0, .len = 1, .buf = &second},
        {.addr = 0x53, .flags = I2C_M_RD, .len = 1, .buf = &value},
    };
    struct i2c_rdwr_ioctl_data request = {.msgs = messages, .nmsgs = 3};
    result = ioctl(fd, I2C_RDWR, &request);
    CHECK(result == 3 && value == 0x05, "write, write, read: %d, %02x", result, value);
    expect("RDWR n=3 w@53[1e05] w@53[1e] r@53#1 -> ok");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_SLAVE_ERRNO=EBUSY */
static void scenario_slave_busy(void)
{
    int error;
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    int result = set_slave(fd, 0x53, &error);
    CHECK_FAILS(result, error, EBUSY);
    expect("SLAVE 53 -> EBUSY");
    result = set_slave(fd, 0x80, &error); /* the range check still comes first */
    CHECK_FAILS(result, error, EINVAL);
    expect("SLAVE 80 -> EINVAL");
    close_device(fd);
}

/* No PLUMB_FAKE_I2C_PATH: the library does nothing; the path does not exist. */
static void scenario_inactive(void)
{
    int fd = open(device_path, O_RDWR);
    CHECK(fd == -1 && errno == ENOENT, "open of the inactive path: %d %s", fd, strerror(errno));
    struct stat status;
    CHECK(stat(log_path, &status) == -1 && errno == ENOENT, "inactive library wrote a log");
}

/* PLUMB_FAKE_I2C_LOG unset: everything works, nothing is written. */
static void scenario_no_log(void)
{
    int fd = open(device_path, O_RDWR);
    CHECK(fd >= 0, "open: %s", strerror(errno));
    unsigned long mask = 0;
    CHECK(ioctl(fd, I2C_FUNCS, &mask) == 0 && mask != 0, "I2C_FUNCS");
    CHECK(close(fd) == 0, "close");
}

/* A child forked from a process with a fake descriptor keeps using it. */
static void scenario_fork(void)
{
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    pid_t child = fork();
    if (child == 0) {
        uint8_t value = 0;
        int error;
        _exit(rdwr_read(fd, 0x53, 0x00, &value, 1, &error) == 2 && value == 0xE5 ? 0 : 1);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "child's read through the inherited descriptor");
    expect("RDWR n=2 w@53[00] r@53#1 -> ok");
    close_device(fd);
}

/* ---- the ADXL355 and the MPU-6050 family ---- */

/** Reads `count` registers from `reg` at `address` in one combined transaction, checking it
 *  succeeded; `buffer` gets the bytes. */
static void read_at(int fd, uint16_t address, uint8_t reg, uint8_t *buffer, uint16_t count)
{
    int error;
    memset(buffer, 0xAA, count);
    int result = rdwr_read(fd, address, reg, buffer, count, &error);
    CHECK(result == 2, "read of %u at %02x from %02x returned %d (%s)", (unsigned)count, (unsigned)address, reg,
          result, strerror(error));
    expect("RDWR n=2 w@%02x[%02x] r@%02x#%u -> ok", (unsigned)address, reg, (unsigned)address, (unsigned)count);
}

static uint8_t byte_at(int fd, uint16_t address, uint8_t reg)
{
    uint8_t value;
    read_at(fd, address, reg, &value, 1);
    return value;
}

static void write_at(int fd, uint16_t address, uint8_t reg, uint8_t value)
{
    uint8_t bytes[2] = {reg, value};
    int error;
    int result = rdwr_write(fd, address, bytes, 2, &error);
    CHECK(result == 1, "write of %02x at %02x returned %d (%s)", reg, (unsigned)address, result, strerror(error));
    expect("RDWR n=1 w@%02x[%02x%02x] -> ok", (unsigned)address, reg, value);
}

/** Whether `count` bytes equal `wanted`, printing both when not. */
static int bytes_are(const uint8_t *actual, const uint8_t *wanted, size_t count, const char *what)
{
    if (memcmp(actual, wanted, count) == 0) {
        return 1;
    }
    fprintf(stderr, "  %s:", what);
    for (size_t i = 0; i < count; i++) fprintf(stderr, " %02x/%02x", actual[i], wanted[i]);
    fprintf(stderr, " (actual/wanted)\n");
    return 0;
}

/* PLUMB_FAKE_I2C_CHIP=adxl355, TEMP=1795, MG=250,-500,1000: IDs, read-only registers, power-on
 * values, the 20-bit left-justified encoding at the running range, FIFO_DATA's entries (x
 * marker, empty indicator, no auto-increment), FILTER refused while measuring, STATUS's FIFO_OVR
 * cleared by reading it, RESET. */
static void scenario_adxl355(void)
{
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    uint8_t buffer[16];
    int error;
    CHECK(rdwr_read(fd, 0x53, 0x00, buffer, 1, &error) == -1 && error == EREMOTEIO, "nothing at 0x53");
    expect("RDWR n=2 w@53[00] r@53#1 -> EREMOTEIO");

    read_at(fd, 0x1D, 0x00, buffer, 4);
    CHECK(bytes_are(buffer, (const uint8_t[]){0xAD, 0x1D, 0xED, 0x01}, 4, "IDs"), "DEVID_AD DEVID_MST PARTID REVID");
    write_at(fd, 0x1D, 0x02, 0x12);
    CHECK(byte_at(fd, 0x1D, 0x02) == 0xED, "PARTID is read-only");
    read_at(fd, 0x1D, 0x28, buffer, 6);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x00, 0x60, 0x00, 0x00, 0x81, 0x01}, 6, "FILTER…POWER_CTL"),
          "power-on values");
    read_at(fd, 0x1D, 0x06, buffer, 2);
    CHECK(buffer[0] == 0x07 && buffer[1] == 0x03, "TEMP2/TEMP1 of 1795: %02x %02x", buffer[0], buffer[1]);
    /* ±2.048 g: 256 000 LSB/g; x 64000, y -128000, z 256000, left-justified. */
    read_at(fd, 0x1D, 0x08, buffer, 9);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x0F, 0xA0, 0x00, 0xE0, 0xC0, 0x00, 0x3E, 0x80, 0x00}, 9, "data"),
          "XDATA3…ZDATA1 at ±2.048 g");
    CHECK(byte_at(fd, 0x1D, 0x05) == 0, "FIFO_ENTRIES in standby");
    read_at(fd, 0x1D, 0x11, buffer, 6);
    CHECK(bytes_are(buffer, (const uint8_t[]){0, 0, 0x02, 0, 0, 0x02}, 6, "empty"), "an empty FIFO's entries");

    /* 3.906 Hz (a sample every 256 ms), ±8.192 g, measure; FILTER then refuses a change. */
    write_at(fd, 0x1D, 0x28, 0x0A);
    write_at(fd, 0x1D, 0x2C, 0x83);
    write_at(fd, 0x1D, 0x2D, 0x00);
    write_at(fd, 0x1D, 0x28, 0x05);
    CHECK(byte_at(fd, 0x1D, 0x28) == 0x0A, "FILTER is not written while measuring");
    int entries = 0;
    for (int polls = 0; polls < 100 && entries == 0; polls++) {
        sleep_ms(20);
        entries = byte_at(fd, 0x1D, 0x05);
    }
    CHECK(entries == 3, "one set after the first period: %d entries", entries);
    /* ±8.192 g: 64 000 LSB/g; x 16000 with the x marker, y -32000, z 64000, then empty. */
    read_at(fd, 0x1D, 0x11, buffer, 12);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x03, 0xE8, 0x01, 0xF8, 0x30, 0x00, 0x0F, 0xA0, 0x00, 0, 0, 0x02}, 12,
                    "FIFO_DATA"),
          "a set, then the empty indicator");
    CHECK(byte_at(fd, 0x1D, 0x05) == 0, "the set was popped");

    /* 4000 Hz for 20 ms: 80 sets into 32; STATUS shows FIFO_OVR once. */
    write_at(fd, 0x1D, 0x2D, 0x01);
    write_at(fd, 0x1D, 0x28, 0x00);
    write_at(fd, 0x1D, 0x2D, 0x00);
    sleep_ms(20);
    write_at(fd, 0x1D, 0x2D, 0x01);
    CHECK(byte_at(fd, 0x1D, 0x05) == 96, "a full FIFO holds 96 entries");
    uint8_t status = byte_at(fd, 0x1D, 0x04);
    CHECK(status == 0x07, "STATUS DATA_RDY, FIFO_FULL, FIFO_OVR: %02x", status);
    status = byte_at(fd, 0x1D, 0x04);
    CHECK(status == 0x03, "FIFO_OVR cleared by reading STATUS: %02x", status);

    write_at(fd, 0x1D, 0x2F, 0x52);
    read_at(fd, 0x1D, 0x28, buffer, 6);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x00, 0x60, 0x00, 0x00, 0x81, 0x01}, 6, "after RESET"), "RESET");
    CHECK(byte_at(fd, 0x1D, 0x05) == 0, "RESET empties the FIFO");
    /* The self-test force with ST1 and ST2: x 250 + 300 mg, 140800 counts at ±2.048 g. */
    write_at(fd, 0x1D, 0x2E, 0x01);
    read_at(fd, 0x1D, 0x08, buffer, 3);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x0F, 0xA0, 0x00}, 3, "ST1 alone"), "no force with ST1 alone");
    write_at(fd, 0x1D, 0x2E, 0x03);
    read_at(fd, 0x1D, 0x08, buffer, 3);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x22, 0x60, 0x00}, 3, "ST1 and ST2"), "the force on x");
    close_device(fd);
}

/* PLUMB_FAKE_I2C_CHIP=mpu6050, TEMP=-521, MG=250,-500,1000: WHO_AM_I, power-on SLEEP, the
 * big-endian encoding at AFS_SEL, the FIFO fed only with FIFO_EN and USER_CTRL's FIFO_EN, FIFO_R_W
 * without auto-increment, INT_STATUS cleared by reading it, the 1024-byte FIFO overflowing out of
 * alignment, FIFO_RESET and DEVICE_RESET clearing themselves. */
static void scenario_mpu(void)
{
    int fd = open_device(O_RDWR);
    expect("OPEN %s -> ok", device_path);
    uint8_t buffer[16];
    CHECK(byte_at(fd, 0x68, 0x75) == 0x68, "WHO_AM_I");
    write_at(fd, 0x68, 0x75, 0x12);
    CHECK(byte_at(fd, 0x68, 0x75) == 0x68, "WHO_AM_I is read-only");
    CHECK(byte_at(fd, 0x68, 0x6B) == 0x40, "asleep at power-on");
    read_at(fd, 0x68, 0x41, buffer, 2);
    CHECK(buffer[0] == 0xFD && buffer[1] == 0xF7, "TEMP_OUT of -521: %02x %02x", buffer[0], buffer[1]);
    /* ±2 g: 16384 LSB/g. */
    read_at(fd, 0x68, 0x3B, buffer, 6);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x10, 0x00, 0xE0, 0x00, 0x40, 0x00}, 6, "ACCEL_*OUT"), "at ±2 g");
    read_at(fd, 0x68, 0x72, buffer, 2);
    CHECK(buffer[0] == 0 && buffer[1] == 0, "FIFO_COUNT asleep");

    /* A sample every 256 ms (1 kHz / 256), ±8 g, the accelerometer into the FIFO, awake. */
    write_at(fd, 0x68, 0x19, 0xFF);
    write_at(fd, 0x68, 0x1A, 0x01);
    write_at(fd, 0x68, 0x1C, 0x10);
    write_at(fd, 0x68, 0x23, 0x08);
    write_at(fd, 0x68, 0x6A, 0x44);
    CHECK(byte_at(fd, 0x68, 0x6A) == 0x40, "FIFO_RESET clears itself");
    write_at(fd, 0x68, 0x6B, 0x01);
    unsigned count = 0;
    for (int polls = 0; polls < 100 && count == 0; polls++) {
        sleep_ms(20);
        read_at(fd, 0x68, 0x72, buffer, 2);
        count = (unsigned)buffer[0] << 8 | buffer[1];
    }
    CHECK(count == 6, "one sample after the first period: %u bytes", count);
    CHECK(byte_at(fd, 0x68, 0x3A) == 0x01, "INT_STATUS DATA_RDY");
    CHECK(byte_at(fd, 0x68, 0x3A) == 0x00, "INT_STATUS cleared by reading it");
    /* ±8 g: 4096 LSB/g; then the empty FIFO repeats the last byte. */
    read_at(fd, 0x68, 0x74, buffer, 8);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x04, 0x00, 0xF8, 0x00, 0x10, 0x00, 0x00, 0x00}, 8, "FIFO_R_W"),
          "a sample from FIFO_R_W");
    read_at(fd, 0x68, 0x72, buffer, 2);
    CHECK(buffer[0] == 0 && buffer[1] == 0, "the sample was popped");

    /* 1 kHz for 300 ms: 1800 bytes into 1024, out of step with the samples. */
    write_at(fd, 0x68, 0x19, 0x00);
    sleep_ms(300);
    write_at(fd, 0x68, 0x6B, 0x41);
    read_at(fd, 0x68, 0x72, buffer, 2);
    CHECK(buffer[0] == 0x04 && buffer[1] == 0x00, "a full FIFO_COUNT is 1024: %02x %02x", buffer[0], buffer[1]);
    CHECK(byte_at(fd, 0x68, 0x3A) == 0x11, "INT_STATUS FIFO_OFLOW_INT and DATA_RDY");
    write_at(fd, 0x68, 0x6A, 0x44);
    read_at(fd, 0x68, 0x72, buffer, 2);
    CHECK(buffer[0] == 0 && buffer[1] == 0, "FIFO_RESET empties it");

    write_at(fd, 0x68, 0x6B, 0x80);
    CHECK(byte_at(fd, 0x68, 0x6B) == 0x40, "DEVICE_RESET: asleep, the bit cleared");
    CHECK(byte_at(fd, 0x68, 0x1C) == 0x00 && byte_at(fd, 0x68, 0x6A) == 0x00, "DEVICE_RESET: registers at 0");
    /* The factory trims (code 16 on each axis), read-only; XA_ST at ±2 g: x 250 + 559 mg. */
    write_at(fd, 0x68, 0x0D, 0x00);
    read_at(fd, 0x68, 0x0D, buffer, 4);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x80, 0x80, 0x80, 0x00}, 4, "SELF_TEST_X…A"), "the trims");
    write_at(fd, 0x68, 0x1C, 0x80);
    read_at(fd, 0x68, 0x3B, buffer, 6);
    CHECK(bytes_are(buffer, (const uint8_t[]){0x33, 0xC6, 0xE0, 0x00, 0x40, 0x00}, 6, "XA_ST"), "the force on x only");
    close_device(fd);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s <scenario> <device-path> <log-path>\n", argv[0]);
        return 2;
    }
    const char *scenario = argv[1];
    device_path = argv[2];
    log_path = argv[3];

    if (strcmp(scenario, "default") == 0) {
        scenario_default();
    } else if (strcmp(scenario, "smbus-only") == 0) {
        scenario_smbus_only();
    } else if (strcmp(scenario, "smbus-block") == 0) {
        scenario_smbus_block();
    } else if (strcmp(scenario, "byte-data-only") == 0) {
        scenario_byte_data_only();
    } else if (strcmp(scenario, "nack") == 0) {
        run_every_transfer_fails(EREMOTEIO);
    } else if (strcmp(scenario, "nack-enxio") == 0) {
        run_every_transfer_fails(ENXIO);
    } else if (strcmp(scenario, "eio") == 0) {
        run_every_transfer_fails(EIO);
    } else if (strcmp(scenario, "eio-after") == 0) {
        scenario_eio_after();
    } else if (strcmp(scenario, "open-eacces") == 0) {
        scenario_open_errno(EACCES, "EACCES");
    } else if (strcmp(scenario, "open-enoent") == 0) {
        scenario_open_errno(ENOENT, "ENOENT");
    } else if (strcmp(scenario, "address") == 0) {
        scenario_address();
    } else if (strcmp(scenario, "chip") == 0) {
        scenario_chip();
    } else if (strcmp(scenario, "slave-busy") == 0) {
        scenario_slave_busy();
    } else if (strcmp(scenario, "inactive") == 0) {
        scenario_inactive();
    } else if (strcmp(scenario, "no-log") == 0) {
        scenario_no_log();
    } else if (strcmp(scenario, "fork") == 0) {
        scenario_fork();
    } else if (strcmp(scenario, "timed-fifo") == 0) {
        scenario_timed_fifo();
    } else if (strcmp(scenario, "one-read-last") == 0) {
        scenario_one_read_last();
    } else if (strcmp(scenario, "adxl355") == 0) {
        scenario_adxl355();
    } else if (strcmp(scenario, "mpu") == 0) {
        scenario_mpu();
    } else if (strcmp(scenario, "noop") == 0) {
        return 0;
    } else {
        fprintf(stderr, "selfcheck: unknown scenario %s\n", scenario);
        return 2;
    }
    if (!log_checked) {
        check_log();
    }
    if (failures != 0) {
        fprintf(stderr, "selfcheck %s: %d check(s) failed\n", scenario, failures);
        return 1;
    }
    return 0;
}
