import I2C

/// A sensor that could not be used: the bus failed, or the chip is not what it should be.
///
/// A struct around a private code, so causes can be added without breaking callers.
public struct SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: String { case bus, wrongDevice, noData, invalidSetting }
        fileprivate let kind: Kind

        /// The bus transfer failed; ``SensorError/busError`` says how.
        public static let bus = Code(kind: .bus)
        /// The identification register did not match the chip.
        public static let wrongDevice = Code(kind: .wrongDevice)
        /// The chip acknowledged but produced no samples in time.
        public static let noData = Code(kind: .noData)
        /// A setting the chip can't take (a rate, range or voltage out of bounds).
        public static let invalidSetting = Code(kind: .invalidSetting)

        public var description: String { kind.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The underlying bus error, for `.bus`.
    public let busError: I2CError?
    private let message: String

    /// Wraps a bus failure.
    public static func bus(_ error: I2CError) -> SensorError {
        SensorError(code: .bus, busError: error, message: error.description)
    }

    /// The identification register read `found` where `model` reads `expected`.
    public static func wrongDevice(model: String, expected: UInt8, found: UInt8, address: I2CAddress, bus: String) -> SensorError {
        SensorError(
            code: .wrongDevice, busError: nil,
            message: "the device at \(address) on \(bus) has ID \(hex(found)), not \(model)'s \(hex(expected)). "
                + "Another chip answers at that address: check the part on the board, or pass the right "
                + "--address (the ADXL345 is 0x53 with SDO low, 0x1D with SDO high).")
    }

    /// The identification register `register` read `found` where `model` reads `expected`;
    /// `addresses` says where that chip answers (for chips other than the ADXL345).
    public static func wrongDevice(model: String, register: String, expected: UInt8, found: UInt8,
                                   address: I2CAddress, bus: String, addresses: String) -> SensorError {
        SensorError(
            code: .wrongDevice, busError: nil,
            message: "the device at \(address) on \(bus) reads \(register) \(hex(found)), not \(model)'s \(hex(expected)). "
                + "Another chip answers at that address: check the part on the board, or pass the right "
                + "--address (\(addresses)).")
    }

    /// No samples arrived within `seconds`.
    public static func noData(model: String, seconds: Double, bus: String) -> SensorError {
        SensorError(
            code: .noData, busError: nil,
            message: "the \(model) on \(bus) produced no samples for \(formatSeconds(seconds)) s. It may have "
                + "lost power and reset to standby; it is reconfigured on the next start. Check its supply.")
    }

    /// A setting the chip can't take; `message` says which values it can.
    public static func invalidSetting(_ message: String) -> SensorError {
        SensorError(code: .invalidSetting, busError: nil, message: message)
    }

    public var description: String { message }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }

    private static func formatSeconds(_ seconds: Double) -> String {
        let tenths = (seconds * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
