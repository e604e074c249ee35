#if canImport(Glibc)
import Glibc
#endif

/// A failed I²C operation: what went wrong, where, and what a person should do about it.
///
/// Shaped like swift-service-lifecycle's errors: a struct around a private code, so new causes can
/// be added without breaking callers that switch over ``code``.
public struct I2CError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. Compare against the static members (`error.code == .noAcknowledge`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: String, Sendable {
            case busNotFound, adapterGone, permissionDenied, noAcknowledge, busError, timedOut, busy
            case unsupported, invalidRequest, other
        }
        fileprivate let kind: Kind

        /// The bus device file does not exist: I²C is not enabled, or the number is wrong.
        public static let busNotFound = Code(kind: .busNotFound)
        /// The adapter went away while in use: `ENODEV` on an open descriptor, or its device file
        /// gone after it had been opened. It was unplugged, or its driver unloaded.
        public static let adapterGone = Code(kind: .adapterGone)
        /// The process may not open the bus device file.
        public static let permissionDenied = Code(kind: .permissionDenied)
        /// No device acknowledged its address (`ENXIO`, or `EREMOTEIO` on a Pi).
        public static let noAcknowledge = Code(kind: .noAcknowledge)
        /// The transfer failed on the wire (`EIO`).
        public static let busError = Code(kind: .busError)
        /// The adapter gave up waiting (`ETIMEDOUT`): a line is held low.
        public static let timedOut = Code(kind: .timedOut)
        /// A kernel driver has claimed the address (`EBUSY`).
        public static let busy = Code(kind: .busy)
        /// The adapter can do neither plain I²C nor SMBus block transfers.
        public static let unsupported = Code(kind: .unsupported)
        /// The request itself was malformed (`EINVAL`, or a length the transfer cannot carry).
        public static let invalidRequest = Code(kind: .invalidRequest)
        /// Any other errno.
        public static let other = Code(kind: .other)

        public var description: String { kind.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The bus it happened on, e.g. `/dev/i2c-1`.
    public let bus: String
    /// The device addressed, when the failure concerns one.
    public let address: I2CAddress?
    /// The errno the kernel returned, when there was one.
    public let errno: Int32?
    /// What was being done: `open`, `read 0x32`, `write 0x2D`.
    public let operation: String

    /// Builds an error directly; transports normally use ``init(errno:bus:address:operation:)``.
    public init(code: Code, bus: String, address: I2CAddress?, errno: Int32? = nil, operation: String) {
        self.code = code
        self.bus = bus
        self.address = address
        self.errno = errno
        self.operation = operation
    }

    /// Classifies an errno from `open(2)` or `ioctl(2)` on an i2c-dev file.
    public init(errno value: Int32, bus: String, address: I2CAddress?, operation: String) {
        let code: Code
        switch value {
        // ENODEV on a descriptor that was open: the adapter behind it was removed.
        case ENODEV where operation != Self.openOperation: code = .adapterGone
        case ENOENT, ENODEV: code = .busNotFound
        case EACCES, EPERM: code = .permissionDenied
        case ENXIO, EREMOTEIO: code = .noAcknowledge
        case EIO: code = .busError
        case ETIMEDOUT: code = .timedOut
        case EBUSY: code = .busy
        case EOPNOTSUPP: code = .unsupported
        case EINVAL: code = .invalidRequest
        default: code = .other
        }
        self.init(code: code, bus: bus, address: address, errno: value, operation: operation)
    }

    /// The ``operation`` of a failed `open(2)` of the bus device file.
    public static let openOperation = "open"

    /// This failure to open the bus again after it had been open: a bus that is not found now
    /// existed before, so its adapter went away (``Code/adapterGone``) rather than I²C never
    /// being enabled. Any other failure is returned unchanged.
    public func reopening() -> I2CError {
        guard code == .busNotFound else { return self }
        return I2CError(code: .adapterGone, bus: bus, address: address, errno: errno, operation: operation)
    }

    /// One paragraph: the failure, then what to do.
    public var description: String {
        let at = address.map { " at \($0)" } ?? ""
        let cause = errno.map { " (\(Self.errnoName($0)))" } ?? ""
        let busNumber = bus.split(separator: "-").last.map(String.init) ?? "1"
        switch code {
        case .busNotFound:
            return "\(bus) does not exist\(cause). Enable I²C: run `sudo raspi-config` → Interface Options → I2C, "
                + "or add `dtparam=i2c_arm=on` to /boot/firmware/config.txt and reboot. `ls /dev/i2c-*` lists the buses."
        case .adapterGone:
            return "the I²C adapter behind \(bus) went away during \(operation)\(cause): it was unplugged or its driver "
                + "was unloaded. Reconnect it (or reload its driver); `ls /dev/i2c-*` lists the buses there are now."
        case .permissionDenied:
            return "permission denied opening \(bus)\(cause). Add the user to the i2c group "
                + "(`sudo usermod -aG i2c $USER`, then log in again) or run as root."
        case .noAcknowledge:
            return "no device acknowledged\(at) on \(bus) during \(operation)\(cause). Check the wiring "
                + "(SDA to GPIO2, SCL to GPIO3, VCC to 3V3, GND, CS to 3V3 for I²C) and the address: "
                + "0x53 with SDO to GND, 0x1D with SDO to 3V3. `i2cdetect -y \(busNumber)` lists what answers."
        case .busError:
            return "bus error\(at) on \(bus) during \(operation)\(cause). Check for loose wires or missing "
                + "pull-ups, and lower the bus speed (`dtparam=i2c_arm_baudrate=100000`) on long cables."
        case .timedOut:
            return "the bus timed out\(at) on \(bus) during \(operation)\(cause): SDA or SCL is held low. "
                + "Power-cycle the sensor and check for a short on the bus lines."
        case .busy:
            return "address\(at.isEmpty ? "" : at) on \(bus) is claimed by a kernel driver\(cause). Unload it "
                + "(`sudo modprobe -r adxl345_i2c`) or remove its device-tree overlay, then retry."
        case .unsupported:
            return "the adapter behind \(bus) supports neither I2C_RDWR nor SMBus I²C-block reads\(cause); "
                + "connect the sensor to another bus (the Pi's /dev/i2c-1 supports both)."
        case .invalidRequest:
            return "the kernel rejected \(operation)\(at) on \(bus) as invalid\(cause). This is a bug in Plumb; "
                + "please report it with this message."
        default:
            return "\(operation)\(at) on \(bus) failed\(cause). Check the sensor's power and wiring, then retry."
        }
    }

    static func errnoName(_ value: Int32) -> String {
        let names: [Int32: String] = [
            ENOENT: "ENOENT", ENODEV: "ENODEV", EACCES: "EACCES", EPERM: "EPERM", ENXIO: "ENXIO",
            EREMOTEIO: "EREMOTEIO", EIO: "EIO", ETIMEDOUT: "ETIMEDOUT", EBUSY: "EBUSY",
            EOPNOTSUPP: "EOPNOTSUPP", EINVAL: "EINVAL",
        ]
        return names[value] ?? "errno \(value)"
    }
}
