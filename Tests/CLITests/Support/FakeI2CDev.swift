import BrokerHarness
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fake Linux `/dev/i2c-N` with an ADXL345 on it (or, with ``Options/chip``, an ADXL355 or an
/// MPU-6050-family part), for running the real `plumb` binary, or any process that opens the bus
/// through the real syscalls, against emulated hardware.
///
/// The fake is the C library `Fixtures/fake-i2c-dev/fake_i2c_dev.c`, loaded into a subprocess
/// with `LD_PRELOAD`. It answers `open(2)`, `ioctl(2)` and `close(2)` on one device path and
/// passes everything else to the C library, appending a line per call to a log file (see the
/// fixture's README.md for the format). This type compiles the library (once per test process,
/// cached across processes by content hash), chooses a fresh device path and log path, and builds
/// the subprocess environment:
///
/// ```swift
/// let fake = try FakeI2CDev(.init(fault: .eioAfter(3)))
/// let process = Process()
/// process.environment = fake.environment()
/// process.arguments = ["probe", "--device", fake.devicePath]
/// // ... run plumb ...
/// let log = try fake.log()
/// #expect(log.first?.line == "OPEN \(fake.devicePath) -> ok")
/// ```
///
/// A value is immutable and `Sendable`; use one per subprocess so each gets its own log.
struct FakeI2CDev: Sendable {
    // MARK: Options

    /// How the fake adapter and chip behave. Each property maps to one `PLUMB_FAKE_I2C_*`
    /// variable; the defaults are the fixture's defaults: a working ADXL345 at 0x53 lying flat.
    struct Options: Sendable, Hashable {
        /// The device path to fake (`PLUMB_FAKE_I2C_PATH`). `nil`: a fresh path in the temporary
        /// directory, ending in `i2c-1`, that does not exist on disk.
        var devicePath: String?
        /// The chip on the bus (`PLUMB_FAKE_I2C_CHIP`).
        var chip: Chip
        /// The chip's 7-bit address (`PLUMB_FAKE_I2C_ADDR`); transfers to any other address are
        /// NACKed. `nil`: the chip's default, ``Chip/defaultAddress``.
        var address: UInt8?
        /// The `I2C_FUNCS` mask (`PLUMB_FAKE_I2C_FUNCS`). `nil`: the fixture's default,
        /// ``FakeI2CDev/defaultFunctionality``. Without `I2C_FUNC_I2C` (0x1), `I2C_RDWR` fails
        /// with `EOPNOTSUPP`.
        var functionality: UInt?
        /// What the chip's part ID register reads (`PLUMB_FAKE_I2C_DEVID`): the ADXL345's DEVID
        /// (0x00), the ADXL355's PARTID (0x02), the MPU's WHO_AM_I (0x75). Another value fakes a
        /// wrong chip, or (0x98 on an MPU-6050) a clone. `nil`: the genuine part's,
        /// ``Chip/genuineID``.
        var deviceID: UInt8?
        /// The raw counts the ADXL345's DATAX0…DATAZ1 serve (`PLUMB_FAKE_I2C_XYZ`); ADXL345 only.
        var counts: Counts
        /// The acceleration the ADXL355 or the MPU serves, in milli-g per axis, encoded at the
        /// range the chip runs with (`PLUMB_FAKE_I2C_MG`). `nil`: level, 0, 0, +1000.
        var milliG: Counts?
        /// The raw value of the ADXL355's TEMP2/TEMP1 (12 bits) or the MPU's TEMP_OUT (signed 16
        /// bits) (`PLUMB_FAKE_I2C_TEMP`). `nil`: the fixture's default for the chip.
        var temperatureRaw: Int32?
        /// What the ADXL355's or the MPU's self-test force adds, milli-g per axis
        /// (`PLUMB_FAKE_I2C_ST_MG`). `nil`: the fixture's typical response for the chip.
        var selfTestMilliG: Counts?
        /// A failure every transfer, or the later ones, suffer (`PLUMB_FAKE_I2C_FAULT`).
        var fault: Fault?
        /// When set, opening the device fails with this errno (`PLUMB_FAKE_I2C_OPEN_ERRNO`), e.g.
        /// `EACCES` for a user outside the `i2c` group.
        var openErrno: Int32?
        /// The errno of a NACK (`PLUMB_FAKE_I2C_NACK_ERRNO`). `nil`: `EREMOTEIO`, what a Pi
        /// returns; `ENXIO` is what many other adapters return.
        var nackErrno: Int32?
        /// When set, `I2C_SLAVE` with a valid address fails with this errno
        /// (`PLUMB_FAKE_I2C_SLAVE_ERRNO`), e.g. `EBUSY` as when a kernel driver owns the chip.
        var slaveErrno: Int32?

        /// Options with every behaviour at the fixture's default unless given.
        init(
            devicePath: String? = nil,
            chip: Chip = .adxl345,
            address: UInt8? = nil,
            functionality: UInt? = nil,
            deviceID: UInt8? = nil,
            counts: Counts = .flat,
            milliG: Counts? = nil,
            temperatureRaw: Int32? = nil,
            selfTestMilliG: Counts? = nil,
            fault: Fault? = nil,
            openErrno: Int32? = nil,
            nackErrno: Int32? = nil,
            slaveErrno: Int32? = nil
        ) {
            self.devicePath = devicePath
            self.chip = chip
            self.address = address
            self.milliG = milliG
            self.temperatureRaw = temperatureRaw
            self.selfTestMilliG = selfTestMilliG
            self.functionality = functionality
            self.deviceID = deviceID
            self.counts = counts
            self.fault = fault
            self.openErrno = openErrno
            self.nackErrno = nackErrno
            self.slaveErrno = slaveErrno
        }
    }

    /// The chips the fixture plays (`PLUMB_FAKE_I2C_CHIP`).
    enum Chip: String, Sendable, Hashable, CaseIterable {
        case adxl345, adxl355, mpu6050, mpu6500, mpu9250

        /// The address the fixture puts it at unless told: 0x53, 0x1D, 0x68.
        var defaultAddress: UInt8 {
            switch self {
            case .adxl345: 0x53
            case .adxl355: 0x1D
            case .mpu6050, .mpu6500, .mpu9250: 0x68
            }
        }

        /// What its part ID register reads on a genuine part: DEVID 0xE5, PARTID 0xED, WHO_AM_I
        /// 0x68, 0x70, 0x71.
        var genuineID: UInt8 {
            switch self {
            case .adxl345: 0xE5
            case .adxl355: 0xED
            case .mpu6050: 0x68
            case .mpu6500: 0x70
            case .mpu9250: 0x71
            }
        }
    }

    /// Raw signed 16-bit counts for the three axes, served little-endian two's complement by the
    /// ADXL345; for the other chips, ``Options/milliG`` and ``Options/selfTestMilliG``, milli-g.
    struct Counts: Sendable, Hashable {
        /// DATAX1:DATAX0.
        var x: Int16
        /// DATAY1:DATAY0.
        var y: Int16
        /// DATAZ1:DATAZ0.
        var z: Int16

        /// Counts for the three axes.
        init(x: Int16, y: Int16, z: Int16) {
            self.x = x
            self.y = y
            self.z = z
        }

        /// Lying flat: 1 g on z at full resolution's 256 LSB/g. The fixture's default.
        static let flat = Counts(x: 0, y: 0, z: 256)
    }

    /// A transfer failure the fake imposes. Transfers are `I2C_RDWR` and `I2C_SMBUS` calls that
    /// pass argument validation; `I2C_FUNCS` and `I2C_SLAVE` never count and never fail this way.
    enum Fault: Sendable, Hashable {
        /// Every transfer is NACKed (the NACK errno, `EREMOTEIO` unless overridden).
        case nack
        /// Every transfer fails with `EIO`.
        case eio
        /// The first `n` transfers behave normally, every later one fails with `EIO`.
        case eioAfter(Int)
        /// The adapter is unplugged after `n` transfers: every later one fails with `ENODEV`,
        /// and opening the device fails with `ENOENT` (the node is gone).
        case goneAfter(Int)

        /// The `PLUMB_FAKE_I2C_FAULT` value.
        var environmentValue: String {
            switch self {
            case .nack: "nack"
            case .eio: "eio"
            case .eioAfter(let count): "eio-after:\(count)"
            case .goneAfter(let count): "gone-after:\(count)"
            }
        }
    }

    // MARK: Constants

    /// The fixture's default `I2C_FUNCS` mask: `I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL`, a plain I²C
    /// adapter with SMBus emulated on top (plain I²C, SMBus quick/byte/byte-data/word-data/
    /// process-call/block-write/I²C-block/PEC). The log shows it as `FUNCS -> 0xeff0009`.
    static let defaultFunctionality: UInt = 0x0EFF_0009

    /// The default mask without `I2C_FUNC_I2C`: an SMBus-only adapter, which makes a transport
    /// fall back from `I2C_RDWR` to SMBus transfers.
    static let smbusOnlyFunctionality: UInt = 0x0EFF_0008

    /// Where the fixture source sits inside the test target's resources (and its source tree).
    static let sourceRelativePath = "Fixtures/fake-i2c-dev/fake_i2c_dev.c"

    /// The exit status of a subprocess whose `PLUMB_FAKE_I2C_*` variables are invalid; the
    /// library also names the variable on stderr.
    static let configurationErrorExitStatus: Int32 = 86

    // MARK: Instance

    /// The options this fake was made with.
    let options: Options
    /// The compiled preload library, shared by every fake in this test process.
    let libraryPath: String
    /// The device path the subprocess should open, e.g. `/tmp/plumb-fake-i2c-…/i2c-1`.
    let devicePath: String
    /// This fake's log file, fresh and not yet created; the library creates it on the first call.
    let logPath: String

    /// Makes a fake: compiles the preload library if this process has not yet, and picks a fresh
    /// log path (and device path, unless `options` names one).
    ///
    /// - Throws: ``FakeI2CDevError`` when the source cannot be found or does not compile.
    init(_ options: Options = Options()) throws(FakeI2CDevError) {
        self.options = options
        libraryPath = try Self.library()
        let unique = UUID().uuidString.lowercased()
        let temporary = FileManager.default.temporaryDirectory
        devicePath = options.devicePath
            ?? temporary.appendingPathComponent("plumb-fake-i2c-\(unique)").appendingPathComponent("i2c-1").path
        logPath = temporary.appendingPathComponent("plumb-fake-i2c-\(unique).log").path
    }

    // MARK: Environment

    /// Only the fake's variables: `LD_PRELOAD` (the library alone) and every `PLUMB_FAKE_I2C_*`
    /// that configures it. Every option is written out, defaults included, so a test never
    /// depends on the fixture's defaults by accident (except ``Options/functionality``,
    /// ``Options/temperatureRaw`` and ``Options/selfTestMilliG``, whose `nil` leaves the fixture's
    /// mask, reading and response; and the variables the chip does not take: `XYZ` is the ADXL345's,
    /// `MG` the others').
    var variables: [String: String] {
        var variables = [
            "LD_PRELOAD": libraryPath,
            "PLUMB_FAKE_I2C_PATH": devicePath,
            "PLUMB_FAKE_I2C_LOG": logPath,
            "PLUMB_FAKE_I2C_CHIP": options.chip.rawValue,
            "PLUMB_FAKE_I2C_ADDR": Self.hex(UInt(options.address ?? options.chip.defaultAddress)),
            "PLUMB_FAKE_I2C_DEVID": Self.hex(UInt(options.deviceID ?? options.chip.genuineID)),
        ]
        if options.chip == .adxl345 {
            variables["PLUMB_FAKE_I2C_XYZ"] = "\(options.counts.x),\(options.counts.y),\(options.counts.z)"
        } else {
            let milliG = options.milliG ?? Counts(x: 0, y: 0, z: 1000)
            variables["PLUMB_FAKE_I2C_MG"] = "\(milliG.x),\(milliG.y),\(milliG.z)"
        }
        if let force = options.selfTestMilliG {
            variables["PLUMB_FAKE_I2C_ST_MG"] = "\(force.x),\(force.y),\(force.z)"
        }
        if let temperatureRaw = options.temperatureRaw {
            variables["PLUMB_FAKE_I2C_TEMP"] = String(temperatureRaw)
        }
        if let functionality = options.functionality {
            variables["PLUMB_FAKE_I2C_FUNCS"] = Self.hex(functionality)
        }
        if let fault = options.fault {
            variables["PLUMB_FAKE_I2C_FAULT"] = fault.environmentValue
        }
        if let openErrno = options.openErrno {
            variables["PLUMB_FAKE_I2C_OPEN_ERRNO"] = String(openErrno)
        }
        if let nackErrno = options.nackErrno {
            variables["PLUMB_FAKE_I2C_NACK_ERRNO"] = String(nackErrno)
        }
        if let slaveErrno = options.slaveErrno {
            variables["PLUMB_FAKE_I2C_SLAVE_ERRNO"] = String(slaveErrno)
        }
        return variables
    }

    /// The environment for the subprocess: `base` with any stale `PLUMB_FAKE_I2C_*` removed, then
    /// ``variables`` added. The library goes first in `LD_PRELOAD`, before any preloads `base`
    /// already has.
    ///
    /// - Parameter base: The environment to start from; by default this test process's.
    func environment(
        mergedInto base: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String: String] {
        var environment = base.filter { !$0.key.hasPrefix("PLUMB_FAKE_I2C_") }
        for (name, value) in variables {
            environment[name] = value
        }
        if let existing = base["LD_PRELOAD"], !existing.isEmpty {
            environment["LD_PRELOAD"] = libraryPath + ":" + existing
        }
        return environment
    }

    // MARK: Log

    /// The log's lines in order, without their newlines; empty when nothing was logged (the
    /// library creates the file on its first line).
    ///
    /// - Throws: ``FakeI2CDevError`` when the log exists but cannot be read.
    func logLines() throws(FakeI2CDevError) -> [String] {
        guard FileManager.default.fileExists(atPath: logPath) else { return [] }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: logPath))
        } catch {
            throw FakeI2CDevError("cannot read the fake I²C log \(logPath): \(error)")
        }
        return String(decoding: data, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map(String.init)
    }

    /// The log parsed into entries, in order.
    ///
    /// - Throws: ``FakeI2CDevError`` when the log cannot be read or a line is not in the
    ///   fixture's format.
    func log() throws(FakeI2CDevError) -> [LogEntry] {
        try logLines().map { line throws(FakeI2CDevError) in
            guard let entry = LogEntry(line: line) else {
                throw FakeI2CDevError("unparseable fake I²C log line in \(logPath): \(line)")
            }
            return entry
        }
    }

    /// Deletes the log file, if there is one. Call when a test is done with the fake.
    func removeLog() {
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// One line of the fake's log.
    struct LogEntry: Sendable, Hashable, CustomStringConvertible {
        /// The call a line records.
        enum Operation: String, Sendable, Hashable {
            /// `open(2)`/`openat(2)` of the fake path: `OPEN <path> -> ok`.
            case open = "OPEN"
            /// `close(2)` of a fake descriptor: `CLOSE`.
            case close = "CLOSE"
            /// `I2C_FUNCS`: `FUNCS -> 0x<mask>`.
            case funcs = "FUNCS"
            /// `I2C_RDWR`: `RDWR n=<count> <message>… -> ok`.
            case rdwr = "RDWR"
            /// `I2C_SLAVE`: `SLAVE 53 -> ok`.
            case slave = "SLAVE"
            /// `I2C_SMBUS`: `SMBUS read cmd=32 size=I2C_BLOCK len=6 -> ok`.
            case smbus = "SMBUS"
            /// Any other ioctl request, always `ENOTTY`: `IOCTL 0x<request> -> ENOTTY`.
            case ioctl = "IOCTL"
        }

        /// How a call ended.
        enum Outcome: Sendable, Hashable {
            /// It succeeded (`-> ok`).
            case ok
            /// `I2C_FUNCS` succeeded and returned this mask (`-> 0x…`).
            case functionality(UInt)
            /// It failed with the errno of this name, e.g. `"EREMOTEIO"` (`-> EREMOTEIO`).
            case failed(String)
        }

        /// The line as logged, without its newline.
        let line: String
        /// The call.
        let operation: Operation
        /// Everything between the operation and ` -> `, e.g. `n=2 w@53[32] r@53#6`; for `OPEN`,
        /// the path.
        let detail: String
        /// How the call ended; `nil` for `CLOSE`, which has none.
        let outcome: Outcome?
        /// The messages of an `RDWR` line, in order; empty for other lines (and for an `RDWR`
        /// rejected before its messages were looked at).
        let messages: [Message]

        /// Parses one log line; `nil` when it is not in the fixture's format.
        init?(line: String) {
            self.line = line
            var body = Substring(line)
            var outcome: Outcome?
            if let arrow = line.range(of: " -> ", options: .backwards) {
                body = line[..<arrow.lowerBound]
                let result = line[arrow.upperBound...]
                if result == "ok" {
                    outcome = .ok
                } else if result.hasPrefix("0x"), let mask = UInt(result.dropFirst(2), radix: 16) {
                    outcome = .functionality(mask)
                } else if result.first == "E", result.count > 1 {
                    outcome = .failed(String(result))
                } else {
                    return nil
                }
            }
            let name: Substring
            if let space = body.firstIndex(of: " ") {
                name = body[..<space]
                detail = String(body[body.index(after: space)...])
            } else {
                name = body
                detail = ""
            }
            guard let operation = Operation(rawValue: String(name)) else { return nil }
            guard (operation == .close) == (outcome == nil) else { return nil }
            self.operation = operation
            self.outcome = outcome
            if operation == .rdwr {
                var messages: [Message] = []
                for token in detail.split(separator: " ").dropFirst() {
                    guard let message = Message(token) else { return nil }
                    messages.append(message)
                }
                self.messages = messages
            } else {
                messages = []
            }
        }

        /// Whether the call succeeded.
        var succeeded: Bool {
            switch outcome {
            case .ok, .functionality: true
            case .failed, nil: false
            }
        }

        /// The errno name the call failed with, e.g. `"EINVAL"`; `nil` when it succeeded.
        var errnoName: String? {
            if case .failed(let name) = outcome { return name }
            return nil
        }

        /// Whether this is a bus transfer (`I2C_RDWR` or `I2C_SMBUS`).
        var isTransfer: Bool { operation == .rdwr || operation == .smbus }

        /// The `key=value` words of ``detail``: `n` for `RDWR`; `cmd`, `size`, `len`, `val`,
        /// `data` for `SMBUS` (values as logged: hex without `0x`, sizes by name).
        var fields: [String: String] {
            var fields: [String: String] = [:]
            for word in detail.split(separator: " ") {
                guard let equals = word.firstIndex(of: "=") else { continue }
                fields[String(word[..<equals])] = String(word[word.index(after: equals)...])
            }
            return fields
        }

        /// The line as logged.
        var description: String { line }
    }

    /// One message of an `I2C_RDWR` transaction, from a log token such as `w@53[2d08]` or
    /// `r@53#6`.
    struct Message: Sendable, Hashable {
        /// Which way the data goes.
        enum Direction: Sendable, Hashable {
            /// Master to chip; the first byte is the register.
            case write
            /// Chip to master.
            case read
        }

        /// Which way the data goes.
        let direction: Direction
        /// The address the message went to.
        let address: UInt16
        /// A write's bytes, at most the first 64 (see ``isTruncated``); empty for a read.
        let bytes: [UInt8]
        /// The byte count: a read's requested length, or a write's logged byte count.
        let length: Int
        /// Whether the log showed only the first 64 of a longer write's bytes.
        let isTruncated: Bool
        /// The message flags when the log showed them (anything beyond `I2C_M_RD`), else `nil`.
        let flags: UInt16?

        /// Parses a token; `nil` when it is not `w@<hex>[<hex bytes>]` or `r@<hex>#<decimal>`,
        /// either optionally followed by `{flags=0x<hex>}`.
        init?(_ token: Substring) {
            var token = token
            if let brace = token.firstIndex(of: "{") {
                let suffix = token[brace...]
                guard suffix.hasPrefix("{flags=0x"), suffix.hasSuffix("}"),
                      let flags = UInt16(suffix.dropFirst("{flags=0x".count).dropLast(), radix: 16)
                else { return nil }
                self.flags = flags
                token = token[..<brace]
            } else {
                flags = nil
            }
            guard token.count > 2, let at = token.firstIndex(of: "@") else { return nil }
            let kind = token[..<at]
            let rest = token[token.index(after: at)...]
            switch kind {
            case "r":
                guard let hash = rest.firstIndex(of: "#"),
                      let address = UInt16(rest[..<hash], radix: 16),
                      let length = Int(rest[rest.index(after: hash)...])
                else { return nil }
                direction = .read
                self.address = address
                self.length = length
                bytes = []
                isTruncated = false
            case "w":
                guard let open = rest.firstIndex(of: "["), rest.hasSuffix("]"),
                      let address = UInt16(rest[..<open], radix: 16)
                else { return nil }
                var hex = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
                isTruncated = hex.hasSuffix("..")
                if isTruncated { hex = hex.dropLast(2) }
                guard hex.count.isMultiple(of: 2) else { return nil }
                var bytes: [UInt8] = []
                var index = hex.startIndex
                while index < hex.endIndex {
                    let next = hex.index(index, offsetBy: 2)
                    guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
                    bytes.append(byte)
                    index = next
                }
                direction = .write
                self.address = address
                self.bytes = bytes
                length = bytes.count
            default:
                return nil
            }
        }
    }

    // MARK: Building the library

    /// The compiled library's path, compiling on first use in this process.
    ///
    /// - Throws: ``FakeI2CDevError`` when the source is missing or does not compile.
    static func library() throws(FakeI2CDevError) -> String {
        try compiledLibrary.get()
    }

    /// The compile result, computed once per process: a `static let` is initialised lazily and
    /// exactly once, whichever test gets there first.
    private static let compiledLibrary: Result<String, FakeI2CDevError> = {
        do throws(FakeI2CDevError) {
            return .success(try compileLibrary())
        } catch {
            return .failure(error)
        }
    }()

    /// The compiler: `$CC` when set, else `cc`.
    private static var compiler: String {
        let configured = ProcessInfo.processInfo.environment["CC"] ?? ""
        return configured.isEmpty ? "cc" : configured
    }

    /// The flags the fixture is built with; `-Werror` keeps it warning-clean.
    private static let compileFlags = ["-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror"]

    /// The fixture source: from the test bundle's resources, else next to this file in the
    /// source tree.
    ///
    /// - Throws: ``FakeI2CDevError`` when neither place has it.
    static func sourceURL() throws(FakeI2CDevError) -> URL {
        var candidates: [URL] = []
        #if SWIFT_PACKAGE
        if let resources = Bundle.module.resourceURL {
            candidates.append(resources.appendingPathComponent(sourceRelativePath))
        }
        candidates.append(Bundle.module.bundleURL.appendingPathComponent(sourceRelativePath))
        #endif
        // Tests/CLITests/Support/FakeI2CDev.swift → Tests/CLITests/Fixtures/…
        candidates.append(
            URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent(sourceRelativePath))
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate.path) {
            return candidate
        }
        throw FakeI2CDevError(
            "fake I²C fixture source not found; looked at: " + candidates.map(\.path).joined(separator: ", "))
    }

    /// Compiles the library into the temporary directory, named by a hash of the source, the
    /// compiler and the flags, unless a previous process already did. The compiler writes a
    /// unique temporary name that is then renamed into place: rename(2) is atomic, so parallel
    /// test processes never load a half-written file, and a racing rename just replaces one
    /// identical build with another.
    private static func compileLibrary() throws(FakeI2CDevError) -> String {
        let source = try sourceURL()
        let contents: Data
        do {
            contents = try Data(contentsOf: source)
        } catch {
            throw FakeI2CDevError("cannot read \(source.path): \(error)")
        }
        let compiler = compiler
        let key = fnv1a64(contents, salt: ([compiler] + compileFlags).joined(separator: " "))
        let directory = FileManager.default.temporaryDirectory
        let library = directory.appendingPathComponent("plumb-fake-i2c-\(key).so").path
        if FileManager.default.fileExists(atPath: library) {
            return library
        }

        let partial = directory
            .appendingPathComponent("plumb-fake-i2c-\(key).\(getpid()).\(UUID().uuidString).tmp.so").path
        let outcome: CommandOutcome
        do {
            outcome = try CommandRun.blocking(["/usr/bin/env", compiler] + compileFlags + ["-o", partial, source.path, "-ldl"],
                                              timeout: 300)
        } catch {
            throw FakeI2CDevError("cannot run \(compiler) for the fake I²C fixture: \(error)")
        }
        guard outcome.status == 0 else {
            try? FileManager.default.removeItem(atPath: partial)
            throw FakeI2CDevError(
                "\(compiler) failed (status \(outcome.status)) compiling \(source.path):\n" + outcome.stdout + outcome.stderr)
        }
        guard rename(partial, library) == 0 else {
            let error = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: partial)
            throw FakeI2CDevError("cannot rename \(partial) to \(library): \(error)")
        }
        return library
    }

    /// FNV-1a, 64 bits, over `data` then `salt`, as 16 hex digits: a stable content key (Swift's
    /// `Hasher` is seeded per process, so it cannot name a file shared between processes).
    private static func fnv1a64(_ data: Data, salt: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in data {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        for byte in salt.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `0x`-prefixed lowercase hex, as the fixture parses it.
    private static func hex(_ value: UInt) -> String {
        "0x" + String(value, radix: 16)
    }
}

/// Why a ``FakeI2CDev`` could not be made or its log read.
struct FakeI2CDevError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, with the compiler's output when compiling failed.
    let description: String

    /// An error saying `description`.
    init(_ description: String) {
        self.description = description
    }
}
