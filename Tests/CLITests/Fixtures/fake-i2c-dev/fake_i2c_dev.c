/*
 * fake_i2c_dev.c: an LD_PRELOAD library that makes one device path behave like a Linux
 * /dev/i2c-N (i2c-dev) file with an ADXL345 accelerometer on the bus.
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

static struct {
    int active;                  /* PLUMB_FAKE_I2C_PATH was set */
    char path[MAX_PATH_LEN];     /* the faked device path */
    char log_path[MAX_PATH_LEN]; /* empty: no log */
    int open_errno;              /* 0: open succeeds */
    int nack_errno;              /* errno of a NACK */
    int slave_errno;             /* 0: I2C_SLAVE succeeds for a valid address */
    unsigned long funcs;         /* I2C_FUNCS answer */
    unsigned address;            /* the ADXL345's 7-bit address */
    uint8_t devid;               /* DEVID register */
    uint8_t data[6];             /* DATAX0..DATAZ1 */
    enum fault_mode fault;
    unsigned long fault_after;   /* FAULT_EIO_AFTER, FAULT_GONE_AFTER: transfers that still succeed */
    enum fifo_model fifo;        /* FIFO_STATUS fixed at 8, or a FIFO filled in real time */
    int one_read_last;           /* I2C_RDWR takes one read message, last (as i2c-bcm2835) */
} cfg;

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

static uint8_t regs[REG_COUNT];
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

    cfg.address = 0x53;
    if ((value = getenv("PLUMB_FAKE_I2C_ADDR")) != NULL && value[0] != '\0') {
        if (parse_unsigned(value, 0x7F, &number) != 0) {
            config_error("PLUMB_FAKE_I2C_ADDR", value, "a 7-bit address, 0x-prefixed hex or decimal");
        }
        cfg.address = (unsigned)number;
    }

    cfg.devid = 0xE5;
    if ((value = getenv("PLUMB_FAKE_I2C_DEVID")) != NULL && value[0] != '\0') {
        if (parse_unsigned(value, 0xFF, &number) != 0) {
            config_error("PLUMB_FAKE_I2C_DEVID", value, "a byte, 0x-prefixed hex or decimal");
        }
        cfg.devid = (uint8_t)number;
    }

    int16_t xyz[3] = {0, 0, 256};
    if ((value = getenv("PLUMB_FAKE_I2C_XYZ")) != NULL && value[0] != '\0' &&
        parse_xyz(value, xyz) != 0) {
        config_error("PLUMB_FAKE_I2C_XYZ", value, "x,y,z: three decimal integers in -32768...32767");
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

    cfg.fifo = FIFO_FIXED;
    if ((value = getenv("PLUMB_FAKE_I2C_FIFO")) != NULL && value[0] != '\0') {
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

/** A write on the wire: the first byte sets the register pointer, the rest are stored at it,
 *  the pointer incrementing after each. */
static void chip_write(const uint8_t *bytes, size_t count)
{
    if (count == 0) {
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
