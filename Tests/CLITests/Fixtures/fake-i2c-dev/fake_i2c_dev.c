/*
 * fake_i2c_dev.c: an LD_PRELOAD library that makes one device path behave like a Linux
 * /dev/i2c-N (i2c-dev) file with an accelerometer on the bus: an ADXL345 by default, or (with
 * PLUMB_FAKE_I2C_CHIP) an ADXL355 or a part of the MPU-6050 family.
 *
 * Plumb's I²C transport is tested through the real syscalls: the `plumb` binary calls open(2),
 * ioctl(2) and close(2) as it would on a Raspberry Pi, and this library, loaded first, answers the
 * calls on file descriptors of the configured path. Every other call, and every call on any
 * other file descriptor, goes to the C library through dlsym(RTLD_NEXT, ...).
 *
 * Configuration is read once, from PLUMB_FAKE_I2C_* environment variables; see README.md next
 * to this file for the variables, the behaviour and the log format. Without PLUMB_FAKE_I2C_PATH
 * the library does nothing at all.
 *
 * Build: cc -shared -fPIC -O1 -Wall -Wextra -Werror -o fake_i2c_dev.so fake_i2c_dev.c -ldl
 */

#define _GNU_SOURCE
/* Fortified <fcntl.h> turns open() into an inline wrapper that cannot be redefined here. */
#undef _FORTIFY_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <linux/i2c.h>
#include <linux/i2c-dev.h>

/* ------------------------------------------------------------------------------------------ */
/* Constants                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/** Exit status of a process whose PLUMB_FAKE_I2C_* configuration is invalid. */
#define CONFIG_EXIT_STATUS 86

/** Fake file descriptors open at the same time; one more open fails with EMFILE. */
#define MAX_FAKE_FDS 64

/** Longest accepted PLUMB_FAKE_I2C_PATH / PLUMB_FAKE_I2C_LOG value, including the NUL. */
#define MAX_PATH_LEN 4096

/** The kernel's per-message length limit for I2C_RDWR (drivers/i2c/i2c-dev.c). */
#define RDWR_MAX_MSG_LEN 8192

/** Write messages longer than this show only their first bytes in the log, then "..". */
#define LOG_MAX_BYTES_PER_MSG 64

/** Longest log line, without the "...\n" that marks a truncated one. */
#define LINE_CAP 8192

/** The ADXL345's register file: addresses 0x00-0x3F; 0x40-0xFF read 0, ignore writes. */
#define REG_COUNT 64

#define REG_DEVID 0x00
#define REG_ACT_TAP_STATUS 0x2B
#define REG_BW_RATE 0x2C
#define REG_POWER_CTL 0x2D
#define REG_INT_SOURCE 0x30
#define REG_DATAX0 0x32
#define REG_DATAZ1 0x37
#define REG_FIFO_CTL 0x38
#define REG_FIFO_STATUS 0x39

#define POWER_CTL_MEASURE 0x08
#define INT_SOURCE_RESET 0x02
#define INT_SOURCE_DATA_READY 0x80
#define FIFO_ENTRIES_WHILE_MEASURING 0x08
#define INT_SOURCE_WATERMARK 0x02
#define INT_SOURCE_OVERRUN 0x01

/** The timed FIFO: 32 levels plus the entry in the data registers (datasheet: 33 can be read). */
#define TIMED_FIFO_CAPACITY 33
/** Wake-up after Measure: the first sample falls due one period plus this after it. */
#define WAKE_UP_NS 1100000ULL
/** The timed FIFO's x counts run through the sample serial modulo this. */
#define SERIAL_MODULUS 1024

/** The default functionality mask: a plain I²C adapter with SMBus emulated on top of it. */
#define DEFAULT_FUNCS ((unsigned long)(I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL))

/* ------------------------------------------------------------------------------------------ */
/* The real C library                                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*close_fn)(int);
typedef int (*ioctl_fn)(int, unsigned long, ...);

static open_fn real_open;
static open_fn real_open64;
static openat_fn real_openat;
static openat_fn real_openat64;
static open2_fn real___open_2;
static open2_fn real___open64_2;
static openat2_fn real___openat_2;
static openat2_fn real___openat64_2;
static close_fn real_close;
static ioctl_fn real_ioctl;
typedef int (*fcntl_fn)(int, int, ...);
static fcntl_fn real_fcntl;
static fcntl_fn real_fcntl64;

/* ------------------------------------------------------------------------------------------ */
/* Configuration (written once under pthread_once, read-only afterwards)                       */
/* ------------------------------------------------------------------------------------------ */

enum fault_mode { FAULT_NONE, FAULT_NACK, FAULT_EIO, FAULT_EIO_AFTER, FAULT_GONE_AFTER };
enum fifo_model { FIFO_FIXED, FIFO_TIMED };
/** The chip on the bus (PLUMB_FAKE_I2C_CHIP). The MPU-6500 and MPU-9250 follow the MPU-6500's
 *  register map: a 512-byte FIFO and CONFIG's FIFO_MODE bit; the MPU-6050's FIFO is 1024 bytes. */
enum chip_kind { CHIP_ADXL345, CHIP_ADXL355, CHIP_MPU6050, CHIP_MPU6500, CHIP_MPU9250 };

static struct {
    int active;                  /* PLUMB_FAKE_I2C_PATH was set */
    char path[MAX_PATH_LEN];     /* the faked device path */
    char log_path[MAX_PATH_LEN]; /* empty: no log */
    int open_errno;              /* 0: open succeeds */
    int nack_errno;              /* errno of a NACK */
    int slave_errno;             /* 0: I2C_SLAVE succeeds for a valid address */
    unsigned long funcs;         /* I2C_FUNCS answer */
    unsigned address;            /* the chip's 7-bit address */
    uint8_t devid;               /* the part ID: DEVID, PARTID (ADXL355) or WHO_AM_I (MPU) */
    uint8_t data[6];             /* DATAX0..DATAZ1 */
    enum fault_mode fault;
    unsigned long fault_after;   /* FAULT_EIO_AFTER, FAULT_GONE_AFTER: transfers that still succeed */
    enum fifo_model fifo;        /* FIFO_STATUS fixed at 8, or a FIFO filled in real time */
    int one_read_last;           /* I2C_RDWR takes one read message, last (as i2c-bcm2835) */
    enum chip_kind chip;         /* which register file answers */
    int32_t gravity_mg[3];       /* ADXL355, MPU: the acceleration served, milli-g per axis */
    int32_t temp_raw;            /* ADXL355, MPU: the temperature registers' raw value */
    int32_t self_test_mg[3];     /* ADXL355, MPU: what the self-test force adds, milli-g per axis */
} cfg;

static int is_mpu(void) { return cfg.chip == CHIP_MPU6050 || cfg.chip == CHIP_MPU6500 || cfg.chip == CHIP_MPU9250; }
static void other_chip_power_on(void);

/* ------------------------------------------------------------------------------------------ */
/* Mutable state, guarded by `lock`                                                            */
/* ------------------------------------------------------------------------------------------ */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/** One open file descriptor of the fake path. */
struct fake_fd {
    int fd;       /* the real descriptor: /dev/null opened O_PATH */
    dev_t dev;    /* identity of what `fd` referred to when it was opened, to spot reuse */
    ino_t ino;
    long slave;   /* address selected by I2C_SLAVE; the kernel starts at 0 */
};

static struct fake_fd fake_fds[MAX_FAKE_FDS];
static size_t fake_fd_count;

/* The register file: the ADXL345 uses 0x00-0x3F, the ADXL355 0x00-0x2F, the MPU 0x00-0x7F. */
static uint8_t regs[256];
static uint8_t reg_pointer;           /* the chip's auto-incrementing register address */
static unsigned long transfer_count;  /* transfers that reached the "bus" */

/** The timed FIFO (PLUMB_FAKE_I2C_FIFO=timed). Samples are numbered from 0 at Measure; the
 *  unread ones are serials produced - count ... produced - 1. */
static struct {
    int running;           /* Measure is set: the ODR clock runs */
    uint64_t first_ns;     /* CLOCK_MONOTONIC time sample 0 of the current grid falls due */
    uint64_t grid_done;    /* samples of the current grid produced so far */
    uint64_t produced;     /* samples produced since power-on: the next sample's serial */
    unsigned count;        /* unread entries, at most TIMED_FIFO_CAPACITY */
    uint64_t last_read;    /* serial the data registers show once every entry is read */
    int overrun;           /* INT_SOURCE OVERRUN: the FIFO filled since the last data read */
} fifo;

/* ------------------------------------------------------------------------------------------ */
/* errno names                                                                                 */
/* ------------------------------------------------------------------------------------------ */

#define ERRNO_ENTRY(name) { name, #name }
static const struct {
    int number;
    const char *name;
} errno_names[] = {
    ERRNO_ENTRY(EPERM),     ERRNO_ENTRY(ENOENT),    ERRNO_ENTRY(EINTR),      ERRNO_ENTRY(EIO),
    ERRNO_ENTRY(ENXIO),     ERRNO_ENTRY(EBADF),     ERRNO_ENTRY(EAGAIN),     ERRNO_ENTRY(ENOMEM),
    ERRNO_ENTRY(EACCES),    ERRNO_ENTRY(EFAULT),    ERRNO_ENTRY(EBUSY),      ERRNO_ENTRY(EEXIST),
    ERRNO_ENTRY(ENODEV),    ERRNO_ENTRY(EINVAL),    ERRNO_ENTRY(EMFILE),     ERRNO_ENTRY(ENOTTY),
    ERRNO_ENTRY(ENOSYS),    ERRNO_ENTRY(EPROTO),    ERRNO_ENTRY(EOPNOTSUPP), ERRNO_ENTRY(ETIMEDOUT),
    ERRNO_ENTRY(EREMOTEIO), ERRNO_ENTRY(EROFS),     ERRNO_ENTRY(ENOSPC),     ERRNO_ENTRY(ENOTDIR),
    ERRNO_ENTRY(EISDIR),    ERRNO_ENTRY(EMSGSIZE),  ERRNO_ENTRY(ECOMM),      ERRNO_ENTRY(EILSEQ),
};

/** The symbolic name of `number`, or "E<number>" for one not in the table. */
static const char *errno_name(int number, char fallback[24])
{
    for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++) {
        if (errno_names[i].number == number) {
            return errno_names[i].name;
        }
    }
    snprintf(fallback, 24, "E%d", number);
    return fallback;
}

/* ------------------------------------------------------------------------------------------ */
/* Configuration parsing                                                                       */
/* ------------------------------------------------------------------------------------------ */

/** Reports an invalid variable on stderr and ends the process: a misconfigured test must fail
 *  loudly, not run against a device it did not ask for. */
__attribute__((noreturn)) static void config_error(const char *variable, const char *value,
                                                   const char *expected)
{
    char message[512];
    int n = snprintf(message, sizeof message, "fake_i2c_dev: invalid %s=\"%.200s\": expected %s\n",
                     variable, value, expected);
    if (n > 0) {
        size_t length = (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
        ssize_t ignored = write(STDERR_FILENO, message, length);
        (void)ignored;
    }
    _exit(CONFIG_EXIT_STATUS);
}

/** Parses an unsigned number: "0x"/"0X" then hex digits, or decimal digits. No sign, no
 *  whitespace, and no leading zero on a decimal number ("053" could mean octal, decimal or a
 *  forgotten "0x"), so it is refused. Returns 0 on success. */
static int parse_unsigned(const char *text, unsigned long max, unsigned long *out)
{
    int base = 10;
    const char *digits = text;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        digits = text + 2;
    }
    int valid_first = base == 16 ? (digits[0] >= '0' && digits[0] <= '9') ||
                                       (digits[0] >= 'a' && digits[0] <= 'f') ||
                                       (digits[0] >= 'A' && digits[0] <= 'F')
                                 : (digits[0] >= '0' && digits[0] <= '9');
    if (!valid_first || (base == 10 && digits[0] == '0' && digits[1] != '\0')) {
        return -1;
    }
    char *end = NULL;
    errno = 0;
    unsigned long value = strtoul(digits, &end, base);
    if (errno != 0 || end == NULL || *end != '\0' || value > max) {
        return -1;
    }
    *out = value;
    return 0;
}

/** Parses an errno: a positive number, or a name from `errno_names` such as "EACCES". */
static int parse_errno(const char *text, int *out)
{
    unsigned long number;
    if (parse_unsigned(text, 4095, &number) == 0 && number > 0) {
        *out = (int)number;
        return 0;
    }
    for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++) {
        if (strcmp(errno_names[i].name, text) == 0) {
            *out = errno_names[i].number;
            return 0;
        }
    }
    return -1;
}

/** Parses "x,y,z", three decimal integers in the int16 range. */
static int parse_xyz(const char *text, int16_t out[3])
{
    const char *cursor = text;
    for (int axis = 0; axis < 3; axis++) {
        if (!((*cursor >= '0' && *cursor <= '9') || *cursor == '-' || *cursor == '+')) {
            return -1;
        }
        char *end = NULL;
        errno = 0;
        long value = strtol(cursor, &end, 10);
        if (errno != 0 || end == cursor || value < INT16_MIN || value > INT16_MAX) {
            return -1;
        }
        if (axis < 2 ? *end != ',' : *end != '\0') {
            return -1;
        }
        out[axis] = (int16_t)value;
        cursor = end + 1;
    }
    return 0;
}

/** Copies a path-valued variable; too long is a configuration error. */
static void copy_path(char destination[MAX_PATH_LEN], const char *variable, const char *value)
{
    size_t length = strlen(value);
    if (length >= MAX_PATH_LEN) {
        config_error(variable, value, "a path shorter than 4096 bytes");
    }
    memcpy(destination, value, length + 1);
}

static void read_config(void)
{
    const char *path = getenv("PLUMB_FAKE_I2C_PATH");
    if (path == NULL || path[0] == '\0') {
        cfg.active = 0;
        return;
    }
    copy_path(cfg.path, "PLUMB_FAKE_I2C_PATH", path);

    const char *value;
    unsigned long number;

    cfg.log_path[0] = '\0';
    if ((value = getenv("PLUMB_FAKE_I2C_LOG")) != NULL && value[0] != '\0') {
        copy_path(cfg.log_path, "PLUMB_FAKE_I2C_LOG", value);
    }

    cfg.chip = CHIP_ADXL345;
    if ((value = getenv("PLUMB_FAKE_I2C_CHIP")) != NULL && value[0] != '\0') {
        static const struct {
            const char *name;
            enum chip_kind chip;
        } chips[] = {{"adxl345", CHIP_ADXL345}, {"adxl355", CHIP_ADXL355}, {"mpu6050", CHIP_MPU6050},
                     {"mpu6500", CHIP_MPU6500}, {"mpu9250", CHIP_MPU9250}};
        size_t i = 0;
        while (i < sizeof chips / sizeof chips[0] && strcmp(chips[i].name, value) != 0) {
            i++;
        }
        if (i == sizeof chips / sizeof chips[0]) {
            config_error("PLUMB_FAKE_I2C_CHIP", value, "adxl345, adxl355, mpu6050, mpu6500 or mpu9250");
        }
        cfg.chip = chips[i].chip;
    }

    cfg.open_errno = 0;
    if ((value = getenv("PLUMB_FAKE_I2C_OPEN_ERRNO")) != NULL && value[0] != '\0' &&
        parse_errno(value, &cfg.open_errno) != 0) {
        config_error("PLUMB_FAKE_I2C_OPEN_ERRNO", value, "an errno number (1-4095) or name");
    }

    cfg.nack_errno = EREMOTEIO;
    if ((value = getenv("PLUMB_FAKE_I2C_NACK_ERRNO")) != NULL && value[0] != '\0' &&
        parse_errno(value, &cfg.nack_errno) != 0) {
        config_error("PLUMB_FAKE_I2C_NACK_ERRNO", value, "an errno number (1-4095) or name");
    }

    cfg.slave_errno = 0;
    if ((value = getenv("PLUMB_FAKE_I2C_SLAVE_ERRNO")) != NULL && value[0] != '\0' &&
        parse_errno(value, &cfg.slave_errno) != 0) {
        config_error("PLUMB_FAKE_I2C_SLAVE_ERRNO", value, "an errno number (1-4095) or name");
    }

    cfg.funcs = DEFAULT_FUNCS;
    if ((value = getenv("PLUMB_FAKE_I2C_FUNCS")) != NULL && value[0] != '\0') {
        if (parse_unsigned(value, 0xFFFFFFFFUL, &number) != 0) {
            config_error("PLUMB_FAKE_I2C_FUNCS", value, "a 32-bit mask, 0x-prefixed hex or decimal");
        }
        cfg.funcs = number;
    }

    cfg.address = cfg.chip == CHIP_ADXL345 ? 0x53 : cfg.chip == CHIP_ADXL355 ? 0x1D : 0x68;
    if ((value = getenv("PLUMB_FAKE_I2C_ADDR")) != NULL && value[0] != '\0') {
        if (parse_unsigned(value, 0x7F, &number) != 0) {
            config_error("PLUMB_FAKE_I2C_ADDR", value, "a 7-bit address, 0x-prefixed hex or decimal");
        }
        cfg.address = (unsigned)number;
    }

    /* The part's ID register: DEVID (ADXL345), PARTID (ADXL355) or WHO_AM_I (MPU). */
    static const uint8_t default_ids[] = {0xE5, 0xED, 0x68, 0x70, 0x71};
    cfg.devid = default_ids[cfg.chip];
    if ((value = getenv("PLUMB_FAKE_I2C_DEVID")) != NULL && value[0] != '\0') {
        if (parse_unsigned(value, 0xFF, &number) != 0) {
            config_error("PLUMB_FAKE_I2C_DEVID", value, "a byte, 0x-prefixed hex or decimal");
        }
        cfg.devid = (uint8_t)number;
    }

    int16_t xyz[3] = {0, 0, 256};
    if ((value = getenv("PLUMB_FAKE_I2C_XYZ")) != NULL && value[0] != '\0') {
        if (cfg.chip != CHIP_ADXL345) {
            config_error("PLUMB_FAKE_I2C_XYZ", value, "unset: raw counts are the ADXL345's; use PLUMB_FAKE_I2C_MG");
        }
        if (parse_xyz(value, xyz) != 0) {
            config_error("PLUMB_FAKE_I2C_XYZ", value, "x,y,z: three decimal integers in -32768...32767");
        }
    }
    for (int axis = 0; axis < 3; axis++) {
        uint16_t raw = (uint16_t)xyz[axis]; /* two's complement, well defined for unsigned */
        cfg.data[2 * axis] = (uint8_t)(raw & 0xFFu);
        cfg.data[2 * axis + 1] = (uint8_t)(raw >> 8);
    }

    cfg.fault = FAULT_NONE;
    cfg.fault_after = 0;
    if ((value = getenv("PLUMB_FAKE_I2C_FAULT")) != NULL && value[0] != '\0') {
        static const char eio_after[] = "eio-after:";
        static const char gone_after[] = "gone-after:";
        if (strcmp(value, "none") == 0) {
            cfg.fault = FAULT_NONE;
        } else if (strcmp(value, "nack") == 0) {
            cfg.fault = FAULT_NACK;
        } else if (strcmp(value, "eio") == 0) {
            cfg.fault = FAULT_EIO;
        } else if (strncmp(value, eio_after, sizeof eio_after - 1) == 0 &&
                   value[sizeof eio_after - 1] >= '0' && value[sizeof eio_after - 1] <= '9' &&
                   parse_unsigned(value + sizeof eio_after - 1, 1000000000UL, &number) == 0) {
            cfg.fault = FAULT_EIO_AFTER;
            cfg.fault_after = number;
        } else if (strncmp(value, gone_after, sizeof gone_after - 1) == 0 &&
                   value[sizeof gone_after - 1] >= '0' && value[sizeof gone_after - 1] <= '9' &&
                   parse_unsigned(value + sizeof gone_after - 1, 1000000000UL, &number) == 0) {
            cfg.fault = FAULT_GONE_AFTER;
            cfg.fault_after = number;
        } else {
            config_error("PLUMB_FAKE_I2C_FAULT", value, "nack, eio, eio-after:N, gone-after:N or none");
        }
    }

    int16_t milli_g[3] = {0, 0, 1000};
    if ((value = getenv("PLUMB_FAKE_I2C_MG")) != NULL && value[0] != '\0') {
        if (cfg.chip == CHIP_ADXL345) {
            config_error("PLUMB_FAKE_I2C_MG", value, "unset: the ADXL345 takes raw counts, PLUMB_FAKE_I2C_XYZ");
        }
        if (parse_xyz(value, milli_g) != 0) {
            config_error("PLUMB_FAKE_I2C_MG", value, "x,y,z: three decimal integers in -32768...32767 (milli-g)");
        }
    }
    for (int axis = 0; axis < 3; axis++) {
        cfg.gravity_mg[axis] = milli_g[axis];
    }

    /* ADXL355: 1885 LSB is 25 °C. MPU-6050: -521 LSB is 35 °C; MPU-6500/9250: 0 LSB is 21 °C. */
    cfg.temp_raw = cfg.chip == CHIP_ADXL355 ? 1885 : cfg.chip == CHIP_MPU6050 ? -521 : 0;
    if ((value = getenv("PLUMB_FAKE_I2C_TEMP")) != NULL && value[0] != '\0') {
        char *end = NULL;
        errno = 0;
        long raw = strtol(value, &end, 10);
        long low = cfg.chip == CHIP_ADXL355 ? 0 : INT16_MIN;
        long high = cfg.chip == CHIP_ADXL355 ? 4095 : INT16_MAX;
        if (cfg.chip == CHIP_ADXL345) {
            config_error("PLUMB_FAKE_I2C_TEMP", value, "unset: the ADXL345 has no temperature registers");
        }
        if (errno != 0 || end == value || *end != '\0' || raw < low || raw > high ||
            !((value[0] >= '0' && value[0] <= '9') || value[0] == '-')) {
            config_error("PLUMB_FAKE_I2C_TEMP", value,
                         cfg.chip == CHIP_ADXL355 ? "a raw 12-bit reading, 0...4095" : "a raw reading, -32768...32767");
        }
        cfg.temp_raw = (int32_t)raw;
    }

    /* The typical self-test response: the ADXL355 datasheet's 0.3, 0.3 and 1.5 g; on the MPUs the
     * factory trim the fake's trim registers hold (code 16 on the MPU-6050: 4096 × 0.34 ×
     * (0.92 / 0.34)^(15/30) LSB at ±8 g, 0.559 g; code 50 on the MPU-6500/9250: 2620 × 1.01^49
     * LSB at ±2 g, 0.260 g). */
    int16_t self_test[3] = {300, 300, 1500};
    if (is_mpu()) {
        int16_t response = cfg.chip == CHIP_MPU6050 ? 559 : 260;
        self_test[0] = self_test[1] = self_test[2] = response;
    }
    if ((value = getenv("PLUMB_FAKE_I2C_ST_MG")) != NULL && value[0] != '\0') {
        if (cfg.chip == CHIP_ADXL345) {
            config_error("PLUMB_FAKE_I2C_ST_MG", value, "unset: the ADXL345's self-test is not modelled");
        }
        if (parse_xyz(value, self_test) != 0) {
            config_error("PLUMB_FAKE_I2C_ST_MG", value, "x,y,z: three decimal integers in -32768...32767 (milli-g)");
        }
    }
    for (int axis = 0; axis < 3; axis++) {
        cfg.self_test_mg[axis] = self_test[axis];
    }

    cfg.fifo = FIFO_FIXED;
    if ((value = getenv("PLUMB_FAKE_I2C_FIFO")) != NULL && value[0] != '\0') {
        if (cfg.chip != CHIP_ADXL345) {
            config_error("PLUMB_FAKE_I2C_FIFO", value, "unset: the ADXL355's and the MPU's FIFOs always run in real time");
        }
        if (strcmp(value, "fixed") == 0) {
            cfg.fifo = FIFO_FIXED;
        } else if (strcmp(value, "timed") == 0) {
            cfg.fifo = FIFO_TIMED;
        } else {
            config_error("PLUMB_FAKE_I2C_FIFO", value, "fixed or timed");
        }
    }

    cfg.one_read_last = 0;
    if ((value = getenv("PLUMB_FAKE_I2C_RDWR_READS")) != NULL && value[0] != '\0') {
        if (strcmp(value, "any") == 0) {
            cfg.one_read_last = 0;
        } else if (strcmp(value, "last") == 0) {
            cfg.one_read_last = 1;
        } else {
            config_error("PLUMB_FAKE_I2C_RDWR_READS", value, "any or last");
        }
    }

    /* ADXL345 power-on values (datasheet Table 19); DEVID, the data registers, INT_SOURCE
     * and FIFO_STATUS are computed on read. */
    memset(regs, 0, sizeof regs);
    regs[REG_BW_RATE] = 0x0A;
    regs[REG_INT_SOURCE] = INT_SOURCE_RESET;
    reg_pointer = 0;
    transfer_count = 0;
    memset(&fifo, 0, sizeof fifo);
    if (cfg.chip != CHIP_ADXL345) {
        other_chip_power_on();
    }
    cfg.active = 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Initialisation                                                                              */
/* ------------------------------------------------------------------------------------------ */

static void lock_for_fork(void) { pthread_mutex_lock(&lock); }
static void unlock_after_fork(void) { pthread_mutex_unlock(&lock); }

static void initialise(void)
{
    real_open = (open_fn)dlsym(RTLD_NEXT, "open");
    real_open64 = (open_fn)dlsym(RTLD_NEXT, "open64");
    real_openat = (openat_fn)dlsym(RTLD_NEXT, "openat");
    real_openat64 = (openat_fn)dlsym(RTLD_NEXT, "openat64");
    real___open_2 = (open2_fn)dlsym(RTLD_NEXT, "__open_2");
    real___open64_2 = (open2_fn)dlsym(RTLD_NEXT, "__open64_2");
    real___openat_2 = (openat2_fn)dlsym(RTLD_NEXT, "__openat_2");
    real___openat64_2 = (openat2_fn)dlsym(RTLD_NEXT, "__openat64_2");
    real_close = (close_fn)dlsym(RTLD_NEXT, "close");
    real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
    real_fcntl = (fcntl_fn)dlsym(RTLD_NEXT, "fcntl");
    real_fcntl64 = (fcntl_fn)dlsym(RTLD_NEXT, "fcntl64");
    read_config();
    /* A fork() while another thread holds the lock must not leave the child's copy locked. */
    pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void ensure_initialised(void) { pthread_once(&once, initialise); }

/* Read the configuration at load time, so a bad variable fails the process at once. */
__attribute__((constructor)) static void load(void) { ensure_initialised(); }

/* ------------------------------------------------------------------------------------------ */
/* Log                                                                                         */
/* ------------------------------------------------------------------------------------------ */

/** The log line being built. Used only with `lock` held. */
static struct {
    char text[LINE_CAP + 8];
    size_t length;
    int truncated;
} line;

static void line_start(void)
{
    line.length = 0;
    line.truncated = 0;
    line.text[0] = '\0';
}

__attribute__((format(printf, 1, 2))) static void line_add(const char *format, ...)
{
    if (line.truncated) {
        return;
    }
    size_t room = LINE_CAP - line.length; /* >= 1: length never exceeds LINE_CAP - 1 */
    va_list arguments;
    va_start(arguments, format);
    int n = vsnprintf(line.text + line.length, room, format, arguments);
    va_end(arguments);
    if (n < 0) {
        line.truncated = 1;
    } else if ((size_t)n >= room) {
        line.length = LINE_CAP - 1;
        line.truncated = 1;
    } else {
        line.length += (size_t)n;
    }
}

static void line_add_result(int error)
{
    char fallback[24];
    line_add(" -> %s", error == 0 ? "ok" : errno_name(error, fallback));
}

/** Appends the line and a newline to the log with one write(2) on an O_APPEND descriptor, so
 *  it is on disk (in the page cache) when the intercepted call returns. errno is preserved. */
static void line_emit(void)
{
    if (cfg.log_path[0] == '\0') {
        return;
    }
    if (line.truncated) {
        memcpy(line.text + line.length, "...", 3);
        line.length += 3;
    }
    line.text[line.length++] = '\n';

    int saved_errno = errno;
    int fd = real_open(cfg.log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        size_t written = 0;
        while (written < line.length) {
            ssize_t n = write(fd, line.text + written, line.length - written);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                break;
            }
            written += (size_t)n;
        }
        real_close(fd);
    }
    errno = saved_errno;
}

static void line_add_bytes(const uint8_t *bytes, size_t count)
{
    size_t shown = count < LOG_MAX_BYTES_PER_MSG ? count : LOG_MAX_BYTES_PER_MSG;
    for (size_t i = 0; i < shown; i++) {
        line_add("%02x", bytes[i]);
    }
    if (shown < count) {
        line_add("..");
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The ADXL345                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static int measuring(void) { return (regs[REG_POWER_CTL] & POWER_CTL_MEASURE) != 0; }

static uint64_t now_ns(void)
{
    struct timespec spec;
    clock_gettime(CLOCK_MONOTONIC, &spec);
    return (uint64_t)spec.tv_sec * 1000000000ULL + (uint64_t)spec.tv_nsec;
}

/** BW_RATE's output data rate: 3200 / 2^(15 - code) Hz. */
static uint64_t period_ns(void)
{
    unsigned code = regs[REG_BW_RATE] & 0x0Fu;
    return (uint64_t)(1e9 / (3200.0 / (double)(1u << (15u - code))));
}

/** Produces every sample due by now into the timed FIFO, which keeps the newest 33 (stream
 *  mode; FIFO and trigger modes are modelled as stream too). */
static void fifo_catch_up(void)
{
    if (cfg.fifo != FIFO_TIMED || !fifo.running) {
        return;
    }
    uint64_t now = now_ns();
    if (now < fifo.first_ns) {
        return;
    }
    uint64_t due = (now - fifo.first_ns) / period_ns() + 1;
    if (due <= fifo.grid_done) {
        return;
    }
    uint64_t fresh = due - fifo.grid_done;
    fifo.grid_done = due;
    fifo.produced += fresh;
    if ((uint64_t)fifo.count + fresh >= TIMED_FIFO_CAPACITY) {
        fifo.count = TIMED_FIFO_CAPACITY; /* the oldest are displaced */
        fifo.overrun = 1;
    } else {
        fifo.count += (unsigned)fresh;
    }
}

/** Starts a sample grid: sample 0 one period plus the wake-up time from now. */
static void fifo_start_grid(uint64_t delay_ns)
{
    fifo.first_ns = now_ns() + period_ns() + delay_ns;
    fifo.grid_done = 0;
}

/** The serial of the entry the data registers show: the oldest unread, or the last read. */
static uint64_t shown_serial(void)
{
    return fifo.count > 0 ? fifo.produced - fifo.count : fifo.last_read;
}

static uint8_t reg_read(uint8_t address)
{
    if (address >= REG_COUNT) {
        return 0;
    }
    if (address >= REG_DATAX0 && address <= REG_DATAZ1) {
        if (cfg.fifo == FIFO_TIMED && address <= REG_DATAX0 + 1) {
            /* x counts: the configured x plus the serial, so order and repeats show. */
            uint16_t x = (uint16_t)((uint16_t)(cfg.data[0] | (cfg.data[1] << 8)) +
                                    (uint16_t)(shown_serial() % SERIAL_MODULUS));
            return address == REG_DATAX0 ? (uint8_t)(x & 0xFFu) : (uint8_t)(x >> 8);
        }
        return cfg.data[address - REG_DATAX0];
    }
    switch (address) {
    case REG_DEVID:
        return cfg.devid;
    case REG_INT_SOURCE:
        if (cfg.fifo == FIFO_TIMED) {
            uint8_t value = 0;
            if (fifo.count > 0) value |= INT_SOURCE_DATA_READY;
            if (fifo.count >= (unsigned)(regs[REG_FIFO_CTL] & 0x1Fu)) value |= INT_SOURCE_WATERMARK;
            if (fifo.overrun) value |= INT_SOURCE_OVERRUN;
            return value;
        }
        return (uint8_t)(INT_SOURCE_RESET | (measuring() ? INT_SOURCE_DATA_READY : 0));
    case REG_FIFO_STATUS:
        if (cfg.fifo == FIFO_TIMED) {
            return (uint8_t)fifo.count;
        }
        return measuring() ? FIFO_ENTRIES_WHILE_MEASURING : 0;
    default:
        return regs[address];
    }
}

static void reg_write(uint8_t address, uint8_t value)
{
    if (address >= REG_COUNT) {
        return;
    }
    if (address == REG_DEVID || address == REG_ACT_TAP_STATUS || address == REG_INT_SOURCE ||
        (address >= REG_DATAX0 && address <= REG_DATAZ1) || address == REG_FIFO_STATUS) {
        return; /* read-only: the chip acknowledges and ignores the byte */
    }
    int was_measuring = measuring();
    unsigned old_rate = regs[REG_BW_RATE] & 0x0Fu;
    regs[address] = value;
    if (cfg.fifo != FIFO_TIMED) {
        return;
    }
    if (address == REG_POWER_CTL && !was_measuring && measuring()) {
        fifo.running = 1;
        fifo_start_grid(WAKE_UP_NS);
    } else if (address == REG_POWER_CTL && was_measuring && !measuring()) {
        fifo.running = 0; /* standby keeps what the FIFO holds */
    } else if (address == REG_BW_RATE && measuring() && (value & 0x0Fu) != old_rate) {
        fifo_start_grid(0);
    } else if (address == REG_FIFO_CTL && (value >> 6) == 0) {
        /* Bypass empties the FIFO; the data registers keep the newest sample. */
        if (fifo.count > 0) fifo.last_read = fifo.produced - 1;
        fifo.count = 0;
        fifo.overrun = 0;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The ADXL355 and the MPU-6050 family                                                         */
/* ------------------------------------------------------------------------------------------ */

/* ADXL355 registers (ADXL354/ADXL355 datasheet, register map). */
#define A355_DEVID_AD 0x00
#define A355_DEVID_MST 0x01
#define A355_PARTID 0x02
#define A355_REVID 0x03
#define A355_STATUS 0x04
#define A355_FIFO_ENTRIES 0x05
#define A355_TEMP2 0x06
#define A355_TEMP1 0x07
#define A355_XDATA3 0x08
#define A355_ZDATA1 0x10
#define A355_FIFO_DATA 0x11
#define A355_OFFSET_X_H 0x1E
#define A355_ACT_COUNT 0x27
#define A355_FILTER 0x28
#define A355_FIFO_SAMPLES 0x29
#define A355_RANGE 0x2C
#define A355_POWER_CTL 0x2D
#define A355_SELF_TEST 0x2E
#define A355_RESET 0x2F
#define A355_RESET_CODE 0x52
#define A355_REVID_VALUE 0x01
#define A355_STANDBY 0x01
#define A355_STATUS_DATA_RDY 0x01
#define A355_STATUS_FIFO_FULL 0x02
#define A355_STATUS_FIFO_OVR 0x04
#define A355_FIFO_SETS 32
#define A355_ST1_ST2 0x03
#define A355_ENTRY_X_MARKER 0x01
#define A355_ENTRY_EMPTY 0x02

/* MPU-6050 family registers (RM-MPU-6000A, RM-MPU-6500A). */
#define MPU_SELF_TEST_X 0x0D
#define MPU_SELF_TEST_A 0x10
#define MPU_SMPLRT_DIV 0x19
#define MPU_CONFIG 0x1A
#define MPU_ACCEL_CONFIG 0x1C
#define MPU_FIFO_EN 0x23
#define MPU_INT_STATUS 0x3A
#define MPU_ACCEL_XOUT_H 0x3B
#define MPU_TEMP_OUT_H 0x41
#define MPU_TEMP_OUT_L 0x42
#define MPU_EXT_SENS_LAST 0x60
#define MPU_USER_CTRL 0x6A
#define MPU_PWR_MGMT_1 0x6B
#define MPU_FIFO_COUNT_H 0x72
#define MPU_FIFO_COUNT_L 0x73
#define MPU_FIFO_R_W 0x74
#define MPU_WHO_AM_I 0x75
#define MPU_REG_LAST 0x7F
#define MPU_DEVICE_RESET 0x80
#define MPU_SLEEP 0x40
#define MPU_ACCEL_FIFO_EN 0x08
#define MPU_USER_FIFO_EN 0x40
#define MPU_USER_SELF_CLEARING 0x07 /* FIFO_RESET, I2C_MST_RESET, SIG_COND_RESET */
#define MPU_USER_FIFO_RESET 0x04
#define MPU_INT_FIFO_OFLOW 0x10
#define MPU_INT_DATA_RDY 0x01
#define MPU_CONFIG_FIFO_MODE 0x40 /* MPU-6500/9250: stop when full */
#define MPU_SAMPLE_BYTES 6

/** The sample clock of the ADXL355 and the MPU: while the chip samples, one sample falls due
 *  every period from one period after it started (or after the rate changed). */
static struct {
    int running;
    uint64_t period_ns;
    uint64_t first_ns;
    uint64_t grid_done;
} sampler;

/** Their FIFOs and flags. ADXL355: whole x/y/z sets, of which the oldest may be partly read
 *  (`phase` entries of it). MPU: a byte queue of six-byte samples, the oldest byte at offset
 *  `phase` of its sample; constant data, so only the count and the phase matter. */
static struct {
    unsigned count;    /* ADXL355: sets; MPU: bytes */
    unsigned phase;    /* ADXL355: entries of the oldest set read; MPU: byte offset of the oldest */
    int overrun;       /* ADXL355 STATUS FIFO_OVR; MPU INT_STATUS FIFO_OFLOW_INT */
    int data_ready;    /* MPU INT_STATUS DATA_RDY_INT: a sample since INT_STATUS was read */
    uint8_t last_byte; /* MPU: what FIFO_R_W reads when the FIFO is empty */
} chip_fifo;

static unsigned mpu_fifo_bytes(void) { return cfg.chip == CHIP_MPU6050 ? 1024u : 512u; }

/** The ADXL355 samples while POWER_CTL's standby bit is clear; the MPU while awake. */
static int other_chip_sampling(void)
{
    if (cfg.chip == CHIP_ADXL355) {
        return (regs[A355_POWER_CTL] & A355_STANDBY) == 0;
    }
    return (regs[MPU_PWR_MGMT_1] & MPU_SLEEP) == 0;
}

/** ADXL355: 4000 / 2^ODR_LPF Hz (codes above 10 are reserved, taken as 10). MPU: 1 kHz /
 *  (1 + SMPLRT_DIV) with the DLPF on (DLPF_CFG 1-6), 8 kHz / (1 + SMPLRT_DIV) with it off. */
static uint64_t other_chip_period_ns(void)
{
    if (cfg.chip == CHIP_ADXL355) {
        unsigned code = regs[A355_FILTER] & 0x0Fu;
        return (1000000000ULL << (code > 10 ? 10 : code)) / 4000ULL;
    }
    unsigned dlpf = regs[MPU_CONFIG] & 0x07u;
    uint64_t base_hz = dlpf >= 1 && dlpf <= 6 ? 1000 : 8000;
    return 1000000000ULL * (1ULL + regs[MPU_SMPLRT_DIV]) / base_hz;
}

/** One sample falls due: into the FIFO, with the overflow rules of the chip. */
static void other_chip_sample(void)
{
    if (cfg.chip == CHIP_ADXL355) {
        if (chip_fifo.count == A355_FIFO_SETS) {
            /* Full: the oldest set (or what is left of it) makes room. */
            chip_fifo.count--;
            chip_fifo.phase = 0;
            chip_fifo.overrun = 1;
        }
        chip_fifo.count++;
        return;
    }
    chip_fifo.data_ready = 1;
    if ((regs[MPU_USER_CTRL] & MPU_USER_FIFO_EN) == 0 || (regs[MPU_FIFO_EN] & MPU_ACCEL_FIFO_EN) == 0) {
        return;
    }
    unsigned capacity = mpu_fifo_bytes();
    if (chip_fifo.count + MPU_SAMPLE_BYTES > capacity) {
        chip_fifo.overrun = 1;
        if (cfg.chip != CHIP_MPU6050 && (regs[MPU_CONFIG] & MPU_CONFIG_FIFO_MODE) != 0) {
            return; /* FIFO_MODE 1: further samples are dropped */
        }
        /* Overwrite the oldest bytes: on the MPU-6050 (1024 bytes) alignment is lost. */
        unsigned drop = chip_fifo.count + MPU_SAMPLE_BYTES - capacity;
        chip_fifo.phase = (chip_fifo.phase + drop) % MPU_SAMPLE_BYTES;
        chip_fifo.count -= drop;
    }
    chip_fifo.count += MPU_SAMPLE_BYTES;
}

/** Takes in the samples due by now. More than a FIFO's worth at once fill it and overrun. */
static void other_chip_catch_up(void)
{
    if (!sampler.running) {
        return;
    }
    uint64_t now = now_ns();
    if (now < sampler.first_ns) {
        return;
    }
    uint64_t due = (now - sampler.first_ns) / sampler.period_ns + 1;
    if (due <= sampler.grid_done) {
        return;
    }
    uint64_t fresh = due - sampler.grid_done;
    sampler.grid_done = due;
    uint64_t bound = cfg.chip == CHIP_ADXL355 ? A355_FIFO_SETS + 1 : mpu_fifo_bytes() / MPU_SAMPLE_BYTES + 2;
    for (uint64_t i = 0; i < fresh && i < bound; i++) {
        other_chip_sample();
    }
}

/** After a write: starts, stops or re-times the sample clock as the registers now say. */
static void other_chip_retune(void)
{
    int sampling = other_chip_sampling();
    uint64_t period = other_chip_period_ns();
    if (sampling && (!sampler.running || period != sampler.period_ns)) {
        sampler.running = 1;
        sampler.period_ns = period;
        sampler.first_ns = now_ns() + period;
        sampler.grid_done = 0;
    } else if (!sampling) {
        sampler.running = 0; /* the FIFO keeps what it holds */
    }
}

/** Power-on (and RESET/DEVICE_RESET) register values, the FIFO empty, not sampling. */
static void other_chip_power_on(void)
{
    memset(regs, 0, sizeof regs);
    memset(&chip_fifo, 0, sizeof chip_fifo);
    memset(&sampler, 0, sizeof sampler);
    if (cfg.chip == CHIP_ADXL355) {
        regs[A355_FIFO_SAMPLES] = 0x60;
        regs[A355_ACT_COUNT] = 0x01;
        regs[A355_RANGE] = 0x81; /* I2C_HS, ±2.048 g */
        regs[A355_POWER_CTL] = A355_STANDBY;
    } else {
        regs[MPU_PWR_MGMT_1] = MPU_SLEEP;
        /* The factory trims: code 16 on every axis of the MPU-6050 (XA_TEST[4:2] = 4 in bits 7:5
         * of SELF_TEST_X…Z, the low bits 0 in SELF_TEST_A); code 50 (0x32) on the MPU-6500/9250. */
        for (int axis = 0; axis < 3; axis++) {
            regs[MPU_SELF_TEST_X + axis] = cfg.chip == CHIP_MPU6050 ? 0x80 : 0x32;
        }
        regs[MPU_SELF_TEST_A] = 0x00;
    }
}

/** Whether the self-test force acts on `axis`: ADXL355 SELF_TEST ST1 and ST2 both set; MPU
 *  ACCEL_CONFIG's XA_ST, YA_ST or ZA_ST (bits 7, 6, 5). */
static int self_test_force(int axis)
{
    if (cfg.chip == CHIP_ADXL355) {
        return (regs[A355_SELF_TEST] & A355_ST1_ST2) == A355_ST1_ST2;
    }
    return (regs[MPU_ACCEL_CONFIG] & (0x80u >> axis)) != 0;
}

/** One axis of the configured gravity in the chip's counts at its current range, clamped to its
 *  rails: ADXL355 256000/128000/64000 LSB/g (RANGE 1/2/3; the reserved 0 as 1), 20 bits; MPU
 *  16384 >> AFS_SEL LSB/g, 16 bits. */
static int32_t other_chip_counts(int axis)
{
    int64_t per_g;
    int64_t low, high;
    if (cfg.chip == CHIP_ADXL355) {
        unsigned code = regs[A355_RANGE] & 0x03u;
        per_g = 512000 >> (code == 0 ? 1 : code);
        low = -(1 << 19);
        high = (1 << 19) - 1;
    } else {
        per_g = 16384 >> ((regs[MPU_ACCEL_CONFIG] >> 3) & 0x03u);
        low = INT16_MIN;
        high = INT16_MAX;
    }
    int64_t milli_g = (int64_t)cfg.gravity_mg[axis] + (self_test_force(axis) ? cfg.self_test_mg[axis] : 0);
    int64_t counts = milli_g * per_g / 1000;
    return (int32_t)(counts < low ? low : counts > high ? high : counts);
}

/** ADXL355: one axis's three bytes, left-justified 20-bit two's complement (DATA3, DATA2, DATA1
 *  with the value's low nibble in DATA1's high nibble). */
static void adxl355_axis_bytes(int axis, uint8_t out[3])
{
    uint32_t raw = (uint32_t)other_chip_counts(axis) & 0xFFFFFu;
    out[0] = (uint8_t)(raw >> 12);
    out[1] = (uint8_t)((raw >> 4) & 0xFFu);
    out[2] = (uint8_t)((raw & 0x0Fu) << 4);
}

static uint8_t adxl355_reg_read(uint8_t address)
{
    uint8_t axis_bytes[3];
    if (address >= A355_XDATA3 && address <= A355_ZDATA1) {
        adxl355_axis_bytes((address - A355_XDATA3) / 3, axis_bytes);
        return axis_bytes[(address - A355_XDATA3) % 3];
    }
    switch (address) {
    case A355_DEVID_AD: return 0xAD;
    case A355_DEVID_MST: return 0x1D;
    case A355_PARTID: return cfg.devid;
    case A355_REVID: return A355_REVID_VALUE;
    case A355_STATUS: {
        uint8_t value = 0;
        if (chip_fifo.count > 0) value |= A355_STATUS_DATA_RDY;
        if (chip_fifo.count * 3u - chip_fifo.phase >= (unsigned)(regs[A355_FIFO_SAMPLES] & 0x7Fu))
            value |= A355_STATUS_FIFO_FULL;
        if (chip_fifo.overrun) value |= A355_STATUS_FIFO_OVR;
        chip_fifo.overrun = 0; /* reading STATUS clears FIFO_OVR */
        return value;
    }
    case A355_FIFO_ENTRIES: return (uint8_t)(chip_fifo.count * 3u - chip_fifo.phase);
    case A355_TEMP2: return (uint8_t)((cfg.temp_raw >> 8) & 0x0F);
    case A355_TEMP1: return (uint8_t)(cfg.temp_raw & 0xFF);
    case A355_RESET: return 0;
    default: return address <= A355_RESET ? regs[address] : 0;
    }
}

/** ADXL355 FIFO_DATA: pops the oldest axis entry, x marked; an empty FIFO reads the empty
 *  indicator. */
static void adxl355_pop_entry(uint8_t out[3])
{
    if (chip_fifo.count == 0) {
        out[0] = 0;
        out[1] = 0;
        out[2] = A355_ENTRY_EMPTY;
        return;
    }
    adxl355_axis_bytes((int)chip_fifo.phase, out);
    if (chip_fifo.phase == 0) {
        out[2] |= A355_ENTRY_X_MARKER;
    }
    if (++chip_fifo.phase == 3) {
        chip_fifo.phase = 0;
        chip_fifo.count--;
    }
}

static void adxl355_reg_write(uint8_t address, uint8_t value)
{
    if (address == A355_RESET) {
        if (value == A355_RESET_CODE) {
            other_chip_power_on();
        }
        return;
    }
    if (address == A355_FILTER && other_chip_sampling()) {
        return; /* the low-pass and rate cannot change in measurement mode */
    }
    if (address == A355_POWER_CTL) {
        regs[address] = value & 0x07u;
    } else if (address >= A355_OFFSET_X_H && address <= A355_SELF_TEST) {
        regs[address] = value;
    }
    /* IDs, STATUS, FIFO_ENTRIES, TEMP, the data, FIFO_DATA and reserved addresses: ignored. */
}

static uint8_t mpu_reg_read(uint8_t address)
{
    int32_t value;
    if (address >= MPU_ACCEL_XOUT_H && address < MPU_ACCEL_XOUT_H + MPU_SAMPLE_BYTES) {
        value = other_chip_counts((address - MPU_ACCEL_XOUT_H) / 2);
        return (address - MPU_ACCEL_XOUT_H) % 2 == 0 ? (uint8_t)(((uint32_t)value >> 8) & 0xFFu)
                                                      : (uint8_t)((uint32_t)value & 0xFFu);
    }
    switch (address) {
    case MPU_INT_STATUS: {
        uint8_t status = (uint8_t)((chip_fifo.overrun ? MPU_INT_FIFO_OFLOW : 0) |
                                   (chip_fifo.data_ready ? MPU_INT_DATA_RDY : 0));
        chip_fifo.overrun = 0; /* cleared by reading */
        chip_fifo.data_ready = 0;
        return status;
    }
    case MPU_TEMP_OUT_H: return (uint8_t)(((uint32_t)cfg.temp_raw >> 8) & 0xFFu);
    case MPU_TEMP_OUT_L: return (uint8_t)((uint32_t)cfg.temp_raw & 0xFFu);
    case MPU_FIFO_COUNT_H: return (uint8_t)(chip_fifo.count >> 8);
    case MPU_FIFO_COUNT_L: return (uint8_t)(chip_fifo.count & 0xFFu);
    case MPU_WHO_AM_I: return cfg.devid;
    default:
        if (address > MPU_INT_STATUS && address <= MPU_EXT_SENS_LAST) {
            return 0; /* the gyroscope and external sensor data */
        }
        return address <= MPU_REG_LAST ? regs[address] : 0;
    }
}

/** MPU FIFO_R_W: pops the oldest byte; an empty FIFO repeats the last byte read. */
static uint8_t mpu_pop_byte(void)
{
    if (chip_fifo.count == 0) {
        return chip_fifo.last_byte;
    }
    int32_t value = other_chip_counts((int)chip_fifo.phase / 2);
    uint8_t byte = chip_fifo.phase % 2 == 0 ? (uint8_t)(((uint32_t)value >> 8) & 0xFFu)
                                            : (uint8_t)((uint32_t)value & 0xFFu);
    chip_fifo.phase = (chip_fifo.phase + 1) % MPU_SAMPLE_BYTES;
    chip_fifo.count--;
    chip_fifo.last_byte = byte;
    return byte;
}

static void mpu_reg_write(uint8_t address, uint8_t value)
{
    if (address == MPU_PWR_MGMT_1 && (value & MPU_DEVICE_RESET) != 0) {
        other_chip_power_on(); /* DEVICE_RESET clears itself */
        return;
    }
    if (address == MPU_USER_CTRL) {
        if (value & MPU_USER_FIFO_RESET) {
            chip_fifo.count = 0;
            chip_fifo.phase = 0;
        }
        regs[address] = value & (uint8_t)~MPU_USER_SELF_CLEARING;
        return;
    }
    if ((address >= MPU_SELF_TEST_X && address <= MPU_SELF_TEST_A) || address == MPU_INT_STATUS ||
        (address >= MPU_ACCEL_XOUT_H && address <= MPU_EXT_SENS_LAST) ||
        address == MPU_FIFO_COUNT_H || address == MPU_FIFO_COUNT_L || address == MPU_FIFO_R_W ||
        address == MPU_WHO_AM_I || address > MPU_REG_LAST) {
        return; /* read-only, the factory trims kept (a write to FIFO_R_W is not modelled) */
    }
    regs[address] = value;
}

/** A write on the wire to the ADXL355 or the MPU, as chip_write. */
static void other_chip_write(const uint8_t *bytes, size_t count)
{
    other_chip_catch_up();
    reg_pointer = bytes[0];
    for (size_t i = 1; i < count; i++) {
        if (cfg.chip == CHIP_ADXL355) {
            adxl355_reg_write(reg_pointer, bytes[i]);
        } else {
            mpu_reg_write(reg_pointer, bytes[i]);
        }
        other_chip_retune();
        reg_pointer = (uint8_t)(reg_pointer + 1u);
    }
}

/** A read on the wire from the ADXL355 or the MPU: the pointer increments after each byte,
 *  except on the FIFO's own register (ADXL355 FIFO_DATA, three bytes an entry; MPU FIFO_R_W, a
 *  byte a pop), where a burst stays. An ADXL355 entry cut short by the end of the message is
 *  popped all the same. */
static void other_chip_read(uint8_t *bytes, size_t count)
{
    other_chip_catch_up();
    size_t i = 0;
    while (i < count) {
        if (cfg.chip == CHIP_ADXL355 && reg_pointer == A355_FIFO_DATA) {
            uint8_t entry[3];
            adxl355_pop_entry(entry);
            for (size_t k = 0; k < 3 && i < count; k++) {
                bytes[i++] = entry[k];
            }
            continue;
        }
        if (is_mpu() && reg_pointer == MPU_FIFO_R_W) {
            bytes[i++] = mpu_pop_byte();
            continue;
        }
        bytes[i++] = cfg.chip == CHIP_ADXL355 ? adxl355_reg_read(reg_pointer) : mpu_reg_read(reg_pointer);
        reg_pointer = (uint8_t)(reg_pointer + 1u);
    }
}

/** A write on the wire: the first byte sets the register pointer, the rest are stored at it,
 *  the pointer incrementing after each. */
static void chip_write(const uint8_t *bytes, size_t count)
{
    if (count == 0) {
        return;
    }
    if (cfg.chip != CHIP_ADXL345) {
        other_chip_write(bytes, count);
        return;
    }
    fifo_catch_up();
    reg_pointer = bytes[0];
    for (size_t i = 1; i < count; i++) {
        reg_write(reg_pointer, bytes[i]);
        reg_pointer = (uint8_t)(reg_pointer + 1u);
    }
}

/** A read on the wire: bytes from the register pointer, incrementing. In the timed FIFO the
 *  message sees the samples due when it starts, and one that touched the data registers pops
 *  an entry when it ends (a shorter read discards the rest of it, as the datasheet warns). */
static void chip_read(uint8_t *bytes, size_t count)
{
    if (cfg.chip != CHIP_ADXL345) {
        other_chip_read(bytes, count);
        return;
    }
    fifo_catch_up();
    int touched_data = 0;
    for (size_t i = 0; i < count; i++) {
        touched_data |= reg_pointer >= REG_DATAX0 && reg_pointer <= REG_DATAZ1;
        bytes[i] = reg_read(reg_pointer);
        reg_pointer = (uint8_t)(reg_pointer + 1u);
    }
    if (cfg.fifo == FIFO_TIMED && touched_data) {
        if (fifo.count > 0) {
            fifo.last_read = fifo.produced - fifo.count;
            fifo.count--;
        }
        fifo.overrun = 0;
    }
}

/** Called once for every transfer that passed argument validation and so would reach the bus:
 *  counts it and returns the errno PLUMB_FAKE_I2C_FAULT imposes on it, or 0. */
static int bus_fault(void)
{
    transfer_count++;
    switch (cfg.fault) {
    case FAULT_NACK:
        return cfg.nack_errno;
    case FAULT_EIO:
        return EIO;
    case FAULT_EIO_AFTER:
        return transfer_count > cfg.fault_after ? EIO : 0;
    case FAULT_GONE_AFTER:
        /* An adapter unplugged: the kernel answers ENODEV on the open descriptor. */
        return transfer_count > cfg.fault_after ? ENODEV : 0;
    case FAULT_NONE:
        break;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Fake file descriptors                                                                       */
/* ------------------------------------------------------------------------------------------ */

static void forget_slot(size_t index)
{
    fake_fds[index] = fake_fds[fake_fd_count - 1];
    fake_fd_count--;
}

static ptrdiff_t slot_index(int fd)
{
    for (size_t i = 0; i < fake_fd_count; i++) {
        if (fake_fds[i].fd == fd) {
            return (ptrdiff_t)i;
        }
    }
    return -1;
}

/** The fake descriptor `fd`, or NULL. A table entry whose number now refers to something else
 *  (closed behind our back, by close_range(2) or dup2(2) say) is dropped. Lock held. */
static struct fake_fd *find_fake(int fd)
{
    ptrdiff_t index = slot_index(fd);
    if (index < 0) {
        return NULL;
    }
    struct stat status;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &status) != 0 || flags < 0 || (flags & O_PATH) == 0 ||
        status.st_dev != fake_fds[index].dev || status.st_ino != fake_fds[index].ino) {
        forget_slot((size_t)index);
        return NULL;
    }
    return &fake_fds[index];
}

/** A real open returned `fd`: it is not fake, whatever the table remembered. Lock held. */
static void note_real_fd(int fd)
{
    ptrdiff_t index = slot_index(fd);
    if (index >= 0) {
        forget_slot((size_t)index);
    }
}

static int path_is_fake(const char *path)
{
    return cfg.active && path != NULL && strcmp(path, cfg.path) == 0;
}

/** Opens the fake device: /dev/null with O_PATH underneath, so the descriptor is real (close,
 *  fcntl, fstat work) but read(2)/write(2) on it fail with EBADF instead of pretending. */
static int open_fake(const char *path, int flags)
{
    int error = 0;
    int fd = -1;
    pthread_mutex_lock(&lock);
    line_start();
    line_add("OPEN %s", path);
    if (cfg.open_errno != 0) {
        error = cfg.open_errno;
    } else if (cfg.fault == FAULT_GONE_AFTER && transfer_count > cfg.fault_after) {
        /* ...and its device node is gone with it. */
        error = ENOENT;
    } else if (fake_fd_count >= MAX_FAKE_FDS) {
        error = EMFILE;
    } else {
        fd = real_open("/dev/null", O_PATH | (flags & O_CLOEXEC));
        struct stat status;
        if (fd < 0) {
            error = errno;
        } else if (fstat(fd, &status) != 0) {
            error = errno;
            real_close(fd);
            fd = -1;
        } else {
            note_real_fd(fd);
            fake_fds[fake_fd_count].fd = fd;
            fake_fds[fake_fd_count].dev = status.st_dev;
            fake_fds[fake_fd_count].ino = status.st_ino;
            fake_fds[fake_fd_count].slave = 0;
            fake_fd_count++;
        }
    }
    line_add_result(error);
    line_emit();
    pthread_mutex_unlock(&lock);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return fd;
}

/** Bookkeeping after a real open: a returned number cannot be a fake descriptor any more. */
static int after_real_open(int fd)
{
    if (fd >= 0 && cfg.active) {
        int saved_errno = errno;
        pthread_mutex_lock(&lock);
        note_real_fd(fd);
        pthread_mutex_unlock(&lock);
        errno = saved_errno;
    }
    return fd;
}

static int needs_mode(int flags)
{
    return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

static int missing_symbol(void)
{
    errno = ENOSYS;
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* ioctl handlers (lock held; each builds and emits one log line, returns 0 or an errno)       */
/* ------------------------------------------------------------------------------------------ */

static int handle_funcs(unsigned long *funcs)
{
    line_start();
    line_add("FUNCS");
    if (funcs == NULL) {
        line_add_result(EFAULT);
        line_emit();
        return EFAULT;
    }
    *funcs = cfg.funcs;
    line_add(" -> 0x%lx", cfg.funcs);
    line_emit();
    return 0;
}

static int handle_slave(struct fake_fd *fake, unsigned long address)
{
    int error = 0;
    line_start();
    line_add("SLAVE %02lx", address);
    if (address > 0x7F) {
        error = EINVAL; /* 10-bit addressing is not offered: I2C_TENBIT is ENOTTY */
    } else if (cfg.slave_errno != 0) {
        error = cfg.slave_errno;
    } else {
        fake->slave = (long)address;
    }
    line_add_result(error);
    line_emit();
    return error;
}

/** I2C_RDWR. On success returns 0 and sets *done to the number of messages transferred. */
static int handle_rdwr(struct i2c_rdwr_ioctl_data *request, int *done)
{
    int error = 0;
    line_start();
    if (request == NULL) {
        line_add("RDWR");
        line_add_result(EFAULT);
        line_emit();
        return EFAULT;
    }
    uint32_t count = request->nmsgs;
    struct i2c_msg *messages = request->msgs;
    line_add("RDWR n=%u", (unsigned)count);

    if (count == 0 || count > I2C_RDWR_IOCTL_MAX_MSGS || messages == NULL) {
        error = EINVAL; /* the messages are not looked at, as in the kernel */
    } else {
        /* Describe every message, and find the first argument error, as the kernel's copy-in
         * loop would. */
        for (uint32_t i = 0; i < count; i++) {
            const struct i2c_msg *message = &messages[i];
            int is_read = (message->flags & I2C_M_RD) != 0;
            int length_ok = message->len <= RDWR_MAX_MSG_LEN && !(is_read && message->len == 0);
            if (is_read) {
                line_add(" r@%02x#%u", (unsigned)message->addr, (unsigned)message->len);
            } else {
                line_add(" w@%02x[", (unsigned)message->addr);
                if (length_ok && message->buf != NULL) {
                    line_add_bytes(message->buf, message->len);
                }
                line_add("]");
            }
            if ((message->flags & ~I2C_M_RD) != 0) {
                line_add("{flags=0x%04x}", (unsigned)message->flags);
            }
            if (error != 0) {
                continue;
            }
            if (!length_ok) {
                error = EINVAL;
            } else if (message->buf == NULL && message->len > 0) {
                error = EFAULT;
            } else if ((message->flags & ~I2C_M_RD) != 0) {
                error = EOPNOTSUPP; /* ten-bit, RECV_LEN, protocol mangling: not offered */
            }
        }
    }
    if (error == 0 && (cfg.funcs & I2C_FUNC_I2C) == 0) {
        error = EOPNOTSUPP; /* an SMBus-only adapter has no master_xfer */
    }
    if (error == 0 && cfg.one_read_last) {
        /* i2c-bcm2835: "only one read message supported, has to be last", refused before the
         * transfer starts. */
        for (uint32_t i = 0; i + 1 < count; i++) {
            if (messages[i].flags & I2C_M_RD) {
                error = EOPNOTSUPP;
                break;
            }
        }
    }
    if (error == 0) {
        error = bus_fault();
    }
    if (error == 0) {
        /* The whole transaction is NACKed if any message is not for the chip; nothing in it
         * takes effect. */
        for (uint32_t i = 0; i < count; i++) {
            if (messages[i].addr != cfg.address) {
                error = cfg.nack_errno;
                break;
            }
        }
    }
    if (error == 0) {
        for (uint32_t i = 0; i < count; i++) {
            if (messages[i].flags & I2C_M_RD) {
                chip_read(messages[i].buf, messages[i].len);
            } else if (messages[i].len > 0) {
                chip_write(messages[i].buf, messages[i].len);
            }
        }
        *done = (int)count;
    }
    line_add_result(error);
    line_emit();
    return error;
}

static const char *smbus_size_name(uint32_t size)
{
    switch (size) {
    case I2C_SMBUS_QUICK: return "QUICK";
    case I2C_SMBUS_BYTE: return "BYTE";
    case I2C_SMBUS_BYTE_DATA: return "BYTE_DATA";
    case I2C_SMBUS_WORD_DATA: return "WORD_DATA";
    case I2C_SMBUS_PROC_CALL: return "PROC_CALL";
    case I2C_SMBUS_BLOCK_DATA: return "BLOCK";
    case I2C_SMBUS_I2C_BLOCK_BROKEN: return "I2C_BLOCK_BROKEN";
    case I2C_SMBUS_BLOCK_PROC_CALL: return "BLOCK_PROC_CALL";
    case I2C_SMBUS_I2C_BLOCK_DATA: return "I2C_BLOCK";
    default: return NULL;
    }
}

/** The functionality bit an SMBus transfer needs. */
static unsigned long smbus_needed_func(uint32_t size, int is_read)
{
    switch (size) {
    case I2C_SMBUS_QUICK: return I2C_FUNC_SMBUS_QUICK;
    case I2C_SMBUS_BYTE: return is_read ? I2C_FUNC_SMBUS_READ_BYTE : I2C_FUNC_SMBUS_WRITE_BYTE;
    case I2C_SMBUS_BYTE_DATA:
        return is_read ? I2C_FUNC_SMBUS_READ_BYTE_DATA : I2C_FUNC_SMBUS_WRITE_BYTE_DATA;
    case I2C_SMBUS_WORD_DATA:
        return is_read ? I2C_FUNC_SMBUS_READ_WORD_DATA : I2C_FUNC_SMBUS_WRITE_WORD_DATA;
    case I2C_SMBUS_PROC_CALL: return I2C_FUNC_SMBUS_PROC_CALL;
    case I2C_SMBUS_BLOCK_DATA:
        return is_read ? I2C_FUNC_SMBUS_READ_BLOCK_DATA : I2C_FUNC_SMBUS_WRITE_BLOCK_DATA;
    case I2C_SMBUS_BLOCK_PROC_CALL: return I2C_FUNC_SMBUS_BLOCK_PROC_CALL;
    case I2C_SMBUS_I2C_BLOCK_BROKEN:
    case I2C_SMBUS_I2C_BLOCK_DATA:
    default:
        return is_read ? I2C_FUNC_SMBUS_READ_I2C_BLOCK : I2C_FUNC_SMBUS_WRITE_I2C_BLOCK;
    }
}

static int handle_smbus(struct fake_fd *fake, struct i2c_smbus_ioctl_data *request)
{
    line_start();
    if (request == NULL) {
        line_add("SMBUS");
        line_add_result(EFAULT);
        line_emit();
        return EFAULT;
    }
    uint8_t read_write = request->read_write;
    uint8_t command = request->command;
    uint32_t size = request->size;
    union i2c_smbus_data *user_data = request->data;
    int is_read = read_write == I2C_SMBUS_READ;
    const char *size_name = smbus_size_name(size);

    if (read_write == I2C_SMBUS_READ || read_write == I2C_SMBUS_WRITE) {
        line_add("SMBUS %s cmd=%02x", is_read ? "read" : "write", command);
    } else {
        line_add("SMBUS rw=%u cmd=%02x", (unsigned)read_write, command);
    }
    if (size_name != NULL) {
        line_add(" size=%s", size_name);
    } else {
        line_add(" size=%u", (unsigned)size);
    }

    int error = 0;
    int needs_data = !(size == I2C_SMBUS_QUICK || (size == I2C_SMBUS_BYTE && !is_read));
    if (size_name == NULL || (read_write != I2C_SMBUS_READ && read_write != I2C_SMBUS_WRITE)) {
        error = EINVAL;
    } else if (needs_data && user_data == NULL) {
        error = EINVAL;
    }

    /* Copy in what the kernel copies in (only what the size uses), describe it, validate. */
    union i2c_smbus_data data;
    memset(&data, 0, sizeof data);
    if (error == 0 && needs_data) {
        switch (size) {
        case I2C_SMBUS_BYTE:
        case I2C_SMBUS_BYTE_DATA:
            data.byte = user_data->byte;
            if (!is_read) {
                line_add(" val=%02x", data.byte);
            }
            break;
        case I2C_SMBUS_WORD_DATA:
        case I2C_SMBUS_PROC_CALL:
            data.word = user_data->word;
            if (!is_read || size == I2C_SMBUS_PROC_CALL) {
                line_add(" val=%04x", data.word);
            }
            break;
        default:
            memcpy(data.block, user_data->block, sizeof data.block);
            if (size == I2C_SMBUS_I2C_BLOCK_BROKEN && is_read) {
                data.block[0] = I2C_SMBUS_BLOCK_MAX; /* what the kernel does for this size */
            }
            if (is_read && size != I2C_SMBUS_BLOCK_DATA) {
                line_add(" len=%u", data.block[0]);
            } else if (!is_read) {
                line_add(" len=%u data=", data.block[0]);
                if (data.block[0] <= I2C_SMBUS_BLOCK_MAX) {
                    line_add_bytes(data.block + 1, data.block[0]);
                }
            }
            /* The length must be 1...32. Zero is caught for writes too, stricter than the
             * kernel: a zero-length block transfer is always a caller bug. */
            if (!(is_read && size == I2C_SMBUS_BLOCK_DATA) &&
                (data.block[0] == 0 || data.block[0] > I2C_SMBUS_BLOCK_MAX)) {
                error = EINVAL;
            }
            break;
        }
    }

    if (error == 0 && size == I2C_SMBUS_BLOCK_PROC_CALL) {
        error = EOPNOTSUPP; /* not modelled */
    }
    if (error == 0 && (cfg.funcs & smbus_needed_func(size, is_read)) == 0) {
        error = EOPNOTSUPP; /* the adapter does not offer this transfer */
    }
    if (error == 0) {
        error = bus_fault();
    }
    if (error == 0 && fake->slave != (long)cfg.address) {
        error = cfg.nack_errno; /* no I2C_SLAVE yet (address 0), or another address */
    }

    if (error == 0) {
        uint8_t bytes[I2C_SMBUS_BLOCK_MAX + 2];
        switch (size) {
        case I2C_SMBUS_QUICK:
            break;
        case I2C_SMBUS_BYTE:
            if (is_read) {
                chip_read(&data.byte, 1);
            } else {
                chip_write(&command, 1);
            }
            break;
        case I2C_SMBUS_BYTE_DATA:
            if (is_read) {
                chip_write(&command, 1);
                chip_read(&data.byte, 1);
            } else {
                bytes[0] = command;
                bytes[1] = data.byte;
                chip_write(bytes, 2);
            }
            break;
        case I2C_SMBUS_WORD_DATA:
        case I2C_SMBUS_PROC_CALL:
            if (!is_read || size == I2C_SMBUS_PROC_CALL) {
                bytes[0] = command;
                bytes[1] = (uint8_t)(data.word & 0xFFu);
                bytes[2] = (uint8_t)(data.word >> 8);
                chip_write(bytes, 3);
            } else {
                chip_write(&command, 1);
            }
            if (is_read || size == I2C_SMBUS_PROC_CALL) {
                chip_read(bytes, 2);
                data.word = (uint16_t)(bytes[0] | (bytes[1] << 8));
            }
            break;
        case I2C_SMBUS_BLOCK_DATA:
            if (is_read) {
                /* The device sends the count first; the ADXL345 sends a register's value. */
                chip_write(&command, 1);
                chip_read(bytes, 1);
                if (bytes[0] == 0 || bytes[0] > I2C_SMBUS_BLOCK_MAX) {
                    error = EPROTO;
                } else {
                    data.block[0] = bytes[0];
                    chip_read(data.block + 1, bytes[0]);
                }
            } else {
                bytes[0] = command;
                memcpy(bytes + 1, data.block, (size_t)data.block[0] + 1);
                chip_write(bytes, (size_t)data.block[0] + 2);
            }
            break;
        default: /* I2C_SMBUS_I2C_BLOCK_DATA, I2C_SMBUS_I2C_BLOCK_BROKEN */
            if (is_read) {
                chip_write(&command, 1);
                chip_read(data.block + 1, data.block[0]);
            } else {
                bytes[0] = command;
                memcpy(bytes + 1, data.block + 1, data.block[0]);
                chip_write(bytes, (size_t)data.block[0] + 1);
            }
            break;
        }
    }

    /* Copy out what the kernel copies out: reads and process calls, on success only. */
    if (error == 0 && needs_data && (is_read || size == I2C_SMBUS_PROC_CALL)) {
        switch (size) {
        case I2C_SMBUS_BYTE:
        case I2C_SMBUS_BYTE_DATA:
            user_data->byte = data.byte;
            break;
        case I2C_SMBUS_WORD_DATA:
        case I2C_SMBUS_PROC_CALL:
            user_data->word = data.word;
            break;
        default:
            memcpy(user_data->block, data.block, sizeof data.block);
            break;
        }
    }

    line_add_result(error);
    line_emit();
    return error;
}

/* ------------------------------------------------------------------------------------------ */
/* The interposed C library functions                                                          */
/* ------------------------------------------------------------------------------------------ */

int open(const char *path, int flags, ...)
{
    ensure_initialised();
    mode_t mode = 0;
    if (needs_mode(flags)) {
        va_list arguments;
        va_start(arguments, flags);
        mode = va_arg(arguments, mode_t);
        va_end(arguments);
    }
    if (path_is_fake(path)) {
        return open_fake(path, flags);
    }
    if (real_open == NULL) {
        return missing_symbol();
    }
    return after_real_open(real_open(path, flags, mode));
}

int open64(const char *path, int flags, ...)
{
    ensure_initialised();
    mode_t mode = 0;
    if (needs_mode(flags)) {
        va_list arguments;
        va_start(arguments, flags);
        mode = va_arg(arguments, mode_t);
        va_end(arguments);
    }
    if (path_is_fake(path)) {
        return open_fake(path, flags);
    }
    if (real_open64 == NULL) {
        return missing_symbol();
    }
    return after_real_open(real_open64(path, flags, mode));
}

int openat(int dirfd, const char *path, int flags, ...)
{
    ensure_initialised();
    mode_t mode = 0;
    if (needs_mode(flags)) {
        va_list arguments;
        va_start(arguments, flags);
        mode = va_arg(arguments, mode_t);
        va_end(arguments);
    }
    if (path_is_fake(path)) {
        return open_fake(path, flags);
    }
    if (real_openat == NULL) {
        return missing_symbol();
    }
    return after_real_open(real_openat(dirfd, path, flags, mode));
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    ensure_initialised();
    mode_t mode = 0;
    if (needs_mode(flags)) {
        va_list arguments;
        va_start(arguments, flags);
        mode = va_arg(arguments, mode_t);
        va_end(arguments);
    }
    if (path_is_fake(path)) {
        return open_fake(path, flags);
    }
    if (real_openat64 == NULL) {
        return missing_symbol();
    }
    return after_real_open(real_openat64(dirfd, path, flags, mode));
}

/* The _FORTIFY_SOURCE entry points (no mode argument). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

int __open_2(const char *path, int flags)
{
    ensure_initialised();
    if (path_is_fake(path)) {
        return open_fake(path, flags);
    }
    if (real___open_2 == NULL) {
        return missing_symbol();
    }
    return after_real_open(real___open_2(path, flags));
}

int __open64_2(const char *path, int flags)
{
    ensure_initialised();
    if (path_is_fake(path)) {
        return open_fake(path, flags);
    }
    if (real___open64_2 == NULL) {
        return missing_symbol();
    }
    return after_real_open(real___open64_2(path, flags));
}

int __openat_2(int dirfd, const char *path, int flags)
{
    ensure_initialised();
    if (path_is_fake(path)) {
        return open_fake(path, flags);
    }
    if (real___openat_2 == NULL) {
        return missing_symbol();
    }
    return after_real_open(real___openat_2(dirfd, path, flags));
}

int __openat64_2(int dirfd, const char *path, int flags)
{
    ensure_initialised();
    if (path_is_fake(path)) {
        return open_fake(path, flags);
    }
    if (real___openat64_2 == NULL) {
        return missing_symbol();
    }
    return after_real_open(real___openat64_2(dirfd, path, flags));
}

int close(int fd)
{
    ensure_initialised();
    if (cfg.active) {
        pthread_mutex_lock(&lock);
        ptrdiff_t index = slot_index(fd);
        if (index >= 0) {
            forget_slot((size_t)index);
            line_start();
            line_add("CLOSE");
            line_emit();
        }
        pthread_mutex_unlock(&lock);
    }
    if (real_close == NULL) {
        return missing_symbol();
    }
    return real_close(fd);
}

int ioctl(int fd, unsigned long request, ...)
{
    ensure_initialised();
    va_list arguments;
    va_start(arguments, request);

    struct fake_fd *fake = NULL;
    if (cfg.active) {
        pthread_mutex_lock(&lock);
        fake = find_fake(fd);
        if (fake == NULL) {
            pthread_mutex_unlock(&lock);
        }
    }
    if (fake == NULL) {
        /* Not ours: pass the one argument on as a pointer, as glibc's own ioctl reads it. */
        void *argument = va_arg(arguments, void *);
        va_end(arguments);
        if (real_ioctl == NULL) {
            return missing_symbol();
        }
        return real_ioctl(fd, request, argument);
    }

    /* The lock is held from here on. Each request's argument is read with its ABI type. */
    int error;
    int result = 0;
    switch (request) {
    case I2C_FUNCS:
        error = handle_funcs(va_arg(arguments, unsigned long *));
        break;
    case I2C_SLAVE:
        error = handle_slave(fake, va_arg(arguments, unsigned long));
        break;
    case I2C_RDWR:
        error = handle_rdwr(va_arg(arguments, struct i2c_rdwr_ioctl_data *), &result);
        break;
    case I2C_SMBUS:
        error = handle_smbus(fake, va_arg(arguments, struct i2c_smbus_ioctl_data *));
        break;
    default:
        error = ENOTTY;
        line_start();
        line_add("IOCTL 0x%lx", request);
        line_add_result(error);
        line_emit();
        break;
    }
    pthread_mutex_unlock(&lock);
    va_end(arguments);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* fcntl: Plumb's chip lock                                                                    */
/* ------------------------------------------------------------------------------------------ */

/** Whether `cmd` takes or tests a record lock (classic or open-file-description). */
static int is_lock_command(int cmd)
{
    return cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW || cmd == 36 /* F_OFD_GETLK */
        || cmd == 37 /* F_OFD_SETLK */ || cmd == 38 /* F_OFD_SETLKW */;
}

/**
 * A lock on a fake descriptor (Plumb's chip lock, taken on the bus device file) is granted:
 * the fake's descriptors are /dev/null opened O_PATH, which takes no lock, and each test process
 * has its fake device to itself. Anything else goes to the real fcntl with its one argument.
 */
static int fake_fcntl(fcntl_fn real, int fd, int cmd, void *argument)
{
    ensure_initialised();
    if (cfg.active && is_lock_command(cmd)) {
        pthread_mutex_lock(&lock);
        struct fake_fd *fake = find_fake(fd);
        pthread_mutex_unlock(&lock);
        if (fake != NULL) {
            if (cmd == F_GETLK || cmd == 36) {
                ((struct flock *)argument)->l_type = F_UNLCK;
            }
            return 0;
        }
    }
    if (real == NULL) {
        return missing_symbol();
    }
    return real(fd, cmd, argument);
}

int fcntl(int fd, int cmd, ...)
{
    va_list arguments;
    va_start(arguments, cmd);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return fake_fcntl(real_fcntl, fd, cmd, argument);
}

int fcntl64(int fd, int cmd, ...)
{
    va_list arguments;
    va_start(arguments, cmd);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return fake_fcntl(real_fcntl64 != NULL ? real_fcntl64 : real_fcntl, fd, cmd, argument);
}
