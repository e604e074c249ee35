import CI2CDev
import PlumbSync
#if canImport(Glibc)
import Glibc
#endif

/// What an i2c-dev adapter reports it can do (`I2C_FUNCS`).
public struct I2CFunctionality: OptionSet, Sendable, Hashable {
    public let rawValue: UInt

    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Plain I²C transfers through `I2C_RDWR`.
    public static let i2c = I2CFunctionality(rawValue: UInt(I2C_FUNC_I2C))
    /// SMBus I²C-block reads.
    public static let smbusReadI2CBlock = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_READ_I2C_BLOCK))
    /// SMBus I²C-block writes.
    public static let smbusWriteI2CBlock = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK))
    /// SMBus byte-data writes (one register).
    public static let smbusWriteByteData = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_BYTE_DATA))
    /// SMBus byte-data reads.
    public static let smbusReadByteData = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_READ_BYTE_DATA))
    /// 10-bit addressing.
    public static let tenBitAddressing = I2CFunctionality(rawValue: UInt(I2C_FUNC_10BIT_ADDR))

    /// Names of the capabilities Plumb cares about, for `plumb probe`.
    public var names: [String] {
        let known: [(I2CFunctionality, String)] = [
            (.i2c, "I2C"), (.tenBitAddressing, "10BIT_ADDR"),
            (.smbusReadByteData, "SMBUS_READ_BYTE_DATA"), (.smbusWriteByteData, "SMBUS_WRITE_BYTE_DATA"),
            (.smbusReadI2CBlock, "SMBUS_READ_I2C_BLOCK"), (.smbusWriteI2CBlock, "SMBUS_WRITE_I2C_BLOCK"),
        ]
        return known.filter { contains($0.0) }.map(\.1)
    }

    /// The transfer mode these capabilities call for, or nil when neither works.
    var preferredTransfer: I2CTransferMode? {
        if contains(.i2c) { return .combined }
        if contains([.smbusReadI2CBlock, .smbusWriteByteData]) { return .smbusBlock }
        return nil
    }
}

/// `/dev/i2c-N` through the kernel's i2c-dev interface.
///
/// A register read is one `I2C_RDWR` combined transaction (write the register address, repeated
/// start, read N bytes) so multi-byte data can't change between bytes. Adapters without plain I²C
/// support fall back to SMBus I²C-block transfers, at most 32 bytes each. Every errno becomes an
/// ``I2CError`` that says what to do; nothing here aborts.
public final class LinuxI2CBus: I2CBus {
    /// The device file, e.g. `/dev/i2c-1`.
    public let path: String
    /// What the adapter reported through `I2C_FUNCS` when the bus was opened.
    public let functionality: I2CFunctionality
    public let transferMode: I2CTransferMode
    public var name: String { path }

    /// The file descriptor, and the address `I2C_SLAVE` last selected (SMBus mode only). Both
    /// are used under the lock: in SMBus mode selecting the address and transferring are two
    /// ioctls that must not interleave with another thread's pair.
    private struct Handle {
        var descriptor: Int32
        var selectedAddress: I2CAddress?
    }
    private let handle: Locked<Handle>

    /// SMBus I²C-block transfers carry at most this many bytes.
    private static let smbusBlockMax = Int(I2C_SMBUS_BLOCK_MAX)

    /// Opens the bus and asks the adapter what it can do.
    ///
    /// - Throws: ``I2CError`` with `.busNotFound` when I²C is not enabled or the number is wrong,
    ///   `.permissionDenied` when the user is not in the `i2c` group, `.unsupported` when the
    ///   adapter can do neither transfer kind.
    public init(path: String) throws(I2CError) {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw I2CError(errno: errno, bus: path, address: nil, operation: "open")
        }
        var funcs: UInt = 0
        guard plumb_i2c_funcs(descriptor, &funcs) == 0 else {
            let error = I2CError(errno: errno, bus: path, address: nil, operation: "I2C_FUNCS")
            close(descriptor)
            throw error
        }
        let functionality = I2CFunctionality(rawValue: funcs)
        guard let mode = functionality.preferredTransfer else {
            close(descriptor)
            throw I2CError(code: .unsupported, bus: path, address: nil, operation: "I2C_FUNCS")
        }
        self.functionality = functionality
        transferMode = mode
        handle = Locked(Handle(descriptor: descriptor, selectedAddress: nil))
    }

    deinit {
        handle.withLock { close($0.descriptor) }
    }

    public func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        guard count > 0, count <= 8192 else {
            throw I2CError(code: .invalidRequest, bus: path, address: address, operation: "read of \(count) bytes")
        }
        switch transferMode {
        case .smbusBlock:
            return try smbusRead(at: address, from: register, count: count)
        default:
            return try combinedRead(at: address, from: register, count: count)
        }
    }

    public func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        switch transferMode {
        case .smbusBlock:
            try smbusWrite(at: address, register, value: value)
        default:
            try combinedWrite(at: address, register, value: value)
        }
    }

    // MARK: I2C_RDWR

    private func combinedRead(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        var registerByte = register
        var buffer = [UInt8](repeating: 0, count: count)
        let result: Int32 = withUnsafeMutablePointer(to: &registerByte) { registerPointer in
            buffer.withUnsafeMutableBufferPointer { readPointer in
                var messages = [
                    i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: 1, buf: registerPointer),
                    i2c_msg(addr: UInt16(address.rawValue), flags: UInt16(I2C_M_RD), len: UInt16(count),
                            buf: readPointer.baseAddress),
                ]
                return messages.withUnsafeMutableBufferPointer { messagePointer in
                    var request = i2c_rdwr_ioctl_data(msgs: messagePointer.baseAddress, nmsgs: 2)
                    return transfer { plumb_i2c_rdwr($0, &request) }
                }
            }
        }
        guard result >= 0 else {
            throw I2CError(errno: errno, bus: path, address: address, operation: "read of register \(hex(register))")
        }
        return buffer
    }

    private func combinedWrite(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        var bytes: [UInt8] = [register, value]
        let result: Int32 = bytes.withUnsafeMutableBufferPointer { bytePointer in
            var message = i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: 2, buf: bytePointer.baseAddress)
            return withUnsafeMutablePointer(to: &message) { messagePointer in
                var request = i2c_rdwr_ioctl_data(msgs: messagePointer, nmsgs: 1)
                return transfer { plumb_i2c_rdwr($0, &request) }
            }
        }
        guard result >= 0 else {
            throw I2CError(errno: errno, bus: path, address: address, operation: "write of register \(hex(register))")
        }
    }

    // MARK: SMBus fallback

    private func smbusRead(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var offset = 0
        while offset < count {
            // Registers auto-increment, so a long read is a run of ≤32-byte block reads.
            let chunk = min(Self.smbusBlockMax, count - offset)
            let start = register &+ UInt8(truncatingIfNeeded: offset)
            var data = i2c_smbus_data()
            // block[0] is the length requested; leaving it 0 reads nothing (SwiftyGPIO's bug).
            data.block.0 = UInt8(chunk)
            let result: Int32 = withUnsafeMutablePointer(to: &data) { dataPointer in
                var request = i2c_smbus_ioctl_data(
                    read_write: UInt8(I2C_SMBUS_READ), command: start,
                    size: UInt32(I2C_SMBUS_I2C_BLOCK_DATA), data: dataPointer)
                return smbusTransfer(at: address) { plumb_i2c_smbus($0, &request) }
            }
            guard result >= 0 else {
                throw I2CError(errno: errno, bus: path, address: address, operation: "read of register \(hex(start))")
            }
            let received = min(Int(data.block.0), chunk)
            guard received == chunk else {
                throw I2CError(code: .busError, bus: path, address: address,
                               operation: "read of register \(hex(start)) (got \(received) of \(chunk) bytes)")
            }
            withUnsafeBytes(of: data.block) { raw in
                bytes.append(contentsOf: raw[1...received])
            }
            offset += chunk
        }
        return bytes
    }

    private func smbusWrite(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        var data = i2c_smbus_data()
        data.byte = value
        let result: Int32 = withUnsafeMutablePointer(to: &data) { dataPointer in
            var request = i2c_smbus_ioctl_data(
                read_write: UInt8(I2C_SMBUS_WRITE), command: register,
                size: UInt32(I2C_SMBUS_BYTE_DATA), data: dataPointer)
            return smbusTransfer(at: address) { plumb_i2c_smbus($0, &request) }
        }
        guard result >= 0 else {
            throw I2CError(errno: errno, bus: path, address: address, operation: "write of register \(hex(register))")
        }
    }

    // MARK: Locking

    /// Runs one ioctl under the lock. errno is thread-local and read right after by the caller on
    /// the same thread, before anything else can overwrite it.
    private func transfer(_ body: (Int32) -> Int32) -> Int32 {
        handle.withLock { body($0.descriptor) }
    }

    /// Selects `address` with `I2C_SLAVE` when needed, then runs the SMBus ioctl, both under the lock.
    private func smbusTransfer(at address: I2CAddress, _ body: (Int32) -> Int32) -> Int32 {
        handle.withLock { state in
            if state.selectedAddress != address {
                guard plumb_i2c_slave(state.descriptor, UInt(address.rawValue)) == 0 else { return -1 }
                state.selectedAddress = address
            }
            return body(state.descriptor)
        }
    }

    private func hex(_ register: UInt8) -> String {
        "0x" + String(register, radix: 16, uppercase: true).leftPadded(to: 2)
    }
}
