// The Linux i2c-dev ABI, imported from the kernel's own UAPI headers rather than re-declared in
// Swift: the structs' layout and the ioctl numbers then can never drift from the kernel's.
#ifndef PLUMB_CI2CDEV_SHIM_H
#define PLUMB_CI2CDEV_SHIM_H

#include <sys/ioctl.h>
#include <fcntl.h>
#include <linux/types.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>

// ioctl(2) is variadic, which Swift cannot call. These typed wrappers are the only way the
// transport reaches the kernel; each passes exactly the argument type the ABI documents.

/// I2C_FUNCS takes an `unsigned long *`.
static inline int plumb_i2c_funcs(int fd, unsigned long *funcs) {
    return ioctl(fd, I2C_FUNCS, funcs);
}

/// I2C_RDWR: one combined transaction (repeated start between messages, one stop at the end).
static inline int plumb_i2c_rdwr(int fd, struct i2c_rdwr_ioctl_data *data) {
    return ioctl(fd, I2C_RDWR, data);
}

/// I2C_SLAVE: the address later SMBus transfers on this file descriptor go to.
static inline int plumb_i2c_slave(int fd, unsigned long address) {
    return ioctl(fd, I2C_SLAVE, address);
}

/// I2C_SMBUS: one SMBus transfer to the address set by I2C_SLAVE.
static inline int plumb_i2c_smbus(int fd, struct i2c_smbus_ioctl_data *data) {
    return ioctl(fd, I2C_SMBUS, data);
}

/// Takes an open-file-description write lock on one byte of the bus device file, without
/// waiting: Plumb's lock on one chip (the bus, and the address as the byte). OFD locks, unlike
/// classic POSIX ones, belong to the open file and not the process, so closing another
/// descriptor of the same bus (a reopen after a fault) cannot drop them. fcntl(2) is variadic
/// too, and F_OFD_SETLK needs _GNU_SOURCE, which Swift's Glibc module does not set; 37 is its
/// value in the Linux ABI.
/// Returns 0 when taken, -1 with errno (EAGAIN/EACCES: another open file holds it).
static inline int plumb_chip_lock(int fd, long long byte) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1, .l_pid = 0 };
#ifdef F_OFD_SETLK
    return fcntl(fd, F_OFD_SETLK, &lock);
#else
    return fcntl(fd, 37 /* F_OFD_SETLK, Linux 3.15 */, &lock);
#endif
}

#endif
