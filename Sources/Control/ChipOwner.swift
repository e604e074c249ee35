import Contract
import StrictJSON
#if canImport(Glibc)
import Glibc
#endif

/// Who owns the chip: the agent's process, its systemd unit, the chip and the socket to ask it
/// through. The agent writes it beside its control socket (``ControlProtocol/ownerFileName``),
/// readable by anyone, so a command refused the chip can say whom to stop, even for a person
/// who may not use the socket. The chip lock itself is ``I2C/ChipLock``; this only names its holder.
public struct ChipOwner: Sendable, Hashable {
    public var pid: Int32
    /// `plumb.service`; nil when the agent was started by hand.
    public var unit: String?
    public var bus: String
    public var address: String
    public var socket: String
    public var version: String
    /// The chip's model, from its description: `ADXL345`; nil from an agent that did not say.
    public var model: String?

    public init(pid: Int32, unit: String?, bus: String, address: String, socket: String, version: String,
                model: String? = nil) {
        self.model = model
        self.pid = pid
        self.unit = unit
        self.bus = bus
        self.address = address
        self.socket = socket
        self.version = version
    }

    public var json: JSONValue {
        .object(["pid": .integer(Int(pid)), "unit": unit.map(JSONValue.string) ?? .null, "bus": .string(bus),
                 "address": .string(address), "socket": .string(socket), "version": .string(version),
                 "model": model.map(JSONValue.string) ?? .null])
    }

    public init(json value: JSONValue) throws(ControlFailure) {
        guard case .object(let fields) = value, case .integer(let pid)? = fields["pid"], pid > 0, pid <= Int(Int32.max),
              case .string(let bus)? = fields["bus"], case .string(let address)? = fields["address"],
              case .string(let socket)? = fields["socket"], case .string(let version)? = fields["version"] else {
            throw ControlFailure(.malformed, "the owner record is not one Plumb writes.")
        }
        let unit: String?
        switch fields["unit"] {
        case .string(let name)?: unit = name
        case .null?, nil: unit = nil
        default: throw ControlFailure(.malformed, "the owner record's unit is not a string.")
        }
        let model: String? = if case .string(let name)? = fields["model"] { name } else { nil }
        self.init(pid: Int32(pid), unit: unit, bus: bus, address: address, socket: socket, version: version, model: model)
    }

    /// `pid 812 (plumb.service)` or `pid 812`.
    public var who: String { "pid \(pid)" + (unit.map { " (\($0))" } ?? "") }

    /// How to stop it: `sudo systemctl stop plumb.service`, or `kill 812` for an agent run by hand.
    public var howToStop: String { unit.map { "sudo systemctl stop \($0)" } ?? "kill \(pid)" }

    /// The unit this process runs in: the last level of its cgroup when that is a `.service`
    /// (`0::/system.slice/plumb.service`); nil outside systemd's services.
    public static func currentUnit(cgroup: String?) -> String? {
        guard let cgroup else { return nil }
        for line in cgroup.split(separator: "\n") {
            guard line.hasPrefix("0::") else { continue }
            let last = line.split(separator: "/").last.map(String.init) ?? ""
            return last.hasSuffix(".service") ? last : nil
        }
        return nil
    }

    /// The unit this process runs in, from `/proc/self/cgroup`.
    public static var currentUnit: String? { currentUnit(cgroup: readSmallFile("/proc/self/cgroup")) }

    /// The owner record in `directory`, when one is there, parses, and names a live process.
    public static func read(directory: String) -> ChipOwner? {
        guard let text = readSmallFile(directory + "/" + ControlProtocol.ownerFileName),
              let value = try? StrictJSON.parse(Array(text.utf8), allowingScalars: false),
              let owner = try? ChipOwner(json: value) else { return nil }
        // A record left by an agent that was killed: its pid is gone (or now another user's,
        // which kill(0) cannot tell from a live agent; the lock is what decides, this only names).
        guard kill(owner.pid, 0) == 0 || errno == EPERM else { return nil }
        return owner
    }

    /// Writes the record into `directory` (replacing it atomically), mode 0644.
    public func write(directory: String) throws(ControlFailure) {
        let path = directory + "/" + ControlProtocol.ownerFileName
        let temporary = path + ".tmp"
        let bytes = json.bytes + [0x0A]
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ControlFailure(.chip, "cannot write \(temporary): \(String(cString: strerror(errno))).")
        }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        fchmod(descriptor, 0o644)
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ControlFailure(.chip, "cannot write \(path): \(String(cString: strerror(errno))).")
        }
    }

    /// Removes the record when the agent stops.
    public static func remove(directory: String) {
        unlink(directory + "/" + ControlProtocol.ownerFileName)
    }
}

/// A small text file (at most 64 KiB), or nil when it cannot be read.
func readSmallFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 65536 {
        let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
