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
/// start, read N bytes) so multi-byte data can't change between bytes; several reads
/// (``readRegisterRuns(at:_:)``) share one `I2C_RDWR` of up to 42 messages, two per run. Adapters
/// without plain I²C support fall back to SMBus I²C-block transfers, at most 32 bytes each, one
/// run per transfer. Every errno becomes an ``I2CError`` that says what to do; nothing here
/// aborts.
///
/// Some adapters take plain I²C but only one read message, and that one last: the Raspberry Pi
/// 0–4's `i2c-bcm2835` refuses anything else with `EOPNOTSUPP` before touching the bus. The first
/// such refusal lowers ``maxRunsPerTransaction`` to 1 for the life of the bus, and the runs are
/// carried one `I2C_RDWR` each.
public final class LinuxI2CBus: I2CBus {
    /// The device file, e.g. `/dev/i2c-1`.
    public let path: String
    /// What the adapter reported through `I2C_FUNCS` when the bus was opened.
    public let functionality: I2CFunctionality
    public let transferMode: I2CTransferMode
    public var name: String { path }

    /// The file descriptor, the address `I2C_SLAVE` last selected (SMBus mode only), and how many
    /// runs one `I2C_RDWR` may carry. All are used under the lock: in SMBus mode selecting the
    /// address and transferring are two ioctls that must not interleave with another thread's pair.
    private struct Handle {
        var descriptor: Int32
        var selectedAddress: I2CAddress?
        var runsPerTransaction: Int
    }
    private let handle: Locked<Handle>

    /// SMBus I²C-block transfers carry at most this many bytes.
    private static let smbusBlockMax = Int(I2C_SMBUS_BLOCK_MAX)

    /// The most messages i2c-dev takes in one `I2C_RDWR` (`I2C_RDWR_IOCTL_MAX_MSGS`, 42, from
    /// `<linux/i2c-dev.h>`); more fail with `EINVAL`.
    public static let maxMessagesPerTransaction = Int(I2C_RDWR_IOCTL_MAX_MSGS)

    /// The most ``RegisterRun``s one `I2C_RDWR` carries: two messages each (the register address,
    /// then the read), so 21.
    public static let maxRunsPerCombinedTransaction = maxMessagesPerTransaction / 2

    /// The longest message i2c-dev accepts; longer ones fail with `EINVAL`.
    private static let maxMessageLength = 8192

    /// Opens the bus and asks the adapter what it can do.
    ///
    /// - Throws: ``I2CError`` with `.busNotFound` when I²C is not enabled or the number is wrong,
    ///   `.permissionDenied` when the user is not in the `i2c` group, `.unsupported` when the
    ///   adapter can do neither transfer kind.
    public init(path: String) throws(I2CError) {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw I2CError(errno: errno, bus: path, address: nil, operation: I2CError.openOperation)
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
        handle = Locked(Handle(descriptor: descriptor, selectedAddress: nil,
                               runsPerTransaction: mode == .combined ? Self.maxRunsPerCombinedTransaction : 1))
    }

    deinit {
        handle.withLock { close($0.descriptor) }
    }

    public func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        guard count > 0, count <= Self.maxMessageLength else {
            throw I2CError(code: .invalidRequest, bus: path, address: address, operation: "read of \(count) bytes")
        }
        switch transferMode {
        case .smbusBlock:
            return try smbusRead(at: address, from: register, count: count)
        default:
            return try combinedRead(at: address, [RegisterRun(register: register, count: count)])[0]
        }
    }

    /// 21 in combined mode (42 messages); 1 with SMBus, or after the adapter refused a
    /// transaction with more than one read message.
    public var maxRunsPerTransaction: Int {
        handle.withLock { $0.runsPerTransaction }
    }

    public func readRegisterRuns(at address: I2CAddress, _ runs: [RegisterRun]) throws(I2CError) -> [[UInt8]] {
        if let bad = runs.first(where: { $0.count <= 0 || $0.count > Self.maxMessageLength }) {
            throw I2CError(code: .invalidRequest, bus: path, address: address, operation: "read of \(bad.count) bytes")
        }
        var results: [[UInt8]] = []
        results.reserveCapacity(runs.count)
        var next = runs.startIndex
        while next < runs.endIndex {
            let size = transferMode == .smbusBlock ? 1 : maxRunsPerTransaction
            let group = Array(runs[next..<min(runs.endIndex, next + size)])
            if transferMode == .smbusBlock {
                results.append(try smbusRead(at: address, from: group[0].register, count: group[0].count))
            } else {
                results += try combinedRead(at: address, group)
            }
            next += group.count
        }
        return results
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

    /// One `I2C_RDWR` with two messages per run: the register address, then the read. An adapter
    /// that takes only one read message refuses more with `EOPNOTSUPP` before any bus traffic (the
    /// i2c core's quirk check and `i2c-bcm2835` both do), so the runs are then safely carried one
    /// transaction each, and so are all later ones.
    private func combinedRead(at address: I2CAddress, _ runs: [RegisterRun]) throws(I2CError) -> [[UInt8]] {
        var registers = runs.map(\.register)
        var buffer = [UInt8](repeating: 0, count: runs.reduce(0) { $0 + $1.count })
        let messageCount = 2 * runs.count
        let (result, failure): (Int32, Int32) = registers.withUnsafeMutableBufferPointer { registerPointer in
            buffer.withUnsafeMutableBufferPointer { readPointer in
                var messages: [i2c_msg] = []
                messages.reserveCapacity(messageCount)
                var offset = 0
                for (index, run) in runs.enumerated() {
                    messages.append(i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: 1,
                                            buf: registerPointer.baseAddress! + index))
                    messages.append(i2c_msg(addr: UInt16(address.rawValue), flags: UInt16(I2C_M_RD), len: UInt16(run.count),
                                            buf: readPointer.baseAddress! + offset))
                    offset += run.count
                }
                return messages.withUnsafeMutableBufferPointer { messagePointer in
                    var request = i2c_rdwr_ioctl_data(msgs: messagePointer.baseAddress, nmsgs: UInt32(messageCount))
                    return transferReadingErrno { plumb_i2c_rdwr($0, &request) }
                }
            }
        }
        if result < 0, failure == EOPNOTSUPP, runs.count > 1 {
            handle.withLock { $0.runsPerTransaction = 1 }
            var results: [[UInt8]] = []
            for run in runs {
                results += try combinedRead(at: address, [run])
            }
            return results
        }
        let operation = runs.count == 1
            ? "read of register \(hex(runs[0].register))"
            : "read of \(runs.count) register runs (\(runs.map(\.description).joined(separator: " "))) in one I2C_RDWR"
        guard result >= 0 else {
            throw I2CError(errno: failure, bus: path, address: address, operation: operation)
        }
        // The kernel returns the messages carried; fewer than asked leaves buffers unfilled.
        guard result == Int32(messageCount) else {
            throw I2CError(code: .busError, bus: path, address: address,
                           operation: operation + " (\(result) of \(messageCount) messages carried)")
        }
        var results: [[UInt8]] = []
        results.reserveCapacity(runs.count)
        var offset = 0
        for run in runs {
            results.append(Array(buffer[offset..<offset + run.count]))
            offset += run.count
        }
        return results
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

    /// Runs one ioctl under the lock and returns its result with the errno it left, read at once
    /// (the caller goes on to allocate, which may overwrite errno).
    private func transferReadingErrno(_ body: (Int32) -> Int32) -> (result: Int32, errno: Int32) {
        handle.withLock { state in
            let result = body(state.descriptor)
            return (result, result < 0 ? errno : 0)
        }
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
