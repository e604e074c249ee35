import Contract
import Geometry
import StrictJSON
import Testing

/// Plumb's own encodings (``JSONValue/bytes``, which P/config, replies and the state files use)
/// must be strict JSON, or the agent would refuse what it wrote.
@Suite("Strict JSON reads what Plumb writes")
struct RoundTripTests {
    /// Seeded, so a failure repeats.
    typealias Generator = SplitMix64

    static func randomValue(depth: Int, using generator: inout Generator) -> JSONValue {
        let strings = ["", "a", "é✓", "q\"b\\s\n\t\u{1}\u{1F}/", "😀", "level_tolerance", "\u{7F}\u{FEFF}"]
        switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator) {
        case 0: return .string(strings.randomElement(using: &generator) ?? "")
        case 1: return .number(Double.random(in: -1e6...1e6, using: &generator) * [1, 1e-300, 1e300].randomElement(using: &generator)!)
        case 2: return .integer(Int.random(in: Int.min...Int.max, using: &generator))
        case 3: return .bool(Bool.random(using: &generator))
        case 4: return .null
        case 5:
            var members: [String: JSONValue] = [:]
            for index in 0..<Int.random(in: 0...4, using: &generator) {
                members["\(strings.randomElement(using: &generator) ?? "")\(index)"] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(members)
        default:
            return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        }
    }

    /// Reals and integers compared as numbers: the encoder writes 45.0 as 45, read back as an integer.
    static func same(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.number(let a), .integer(let b)), (.integer(let b), .number(let a)): return a == Double(b)
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        default: return lhs == rhs
        }
    }

    @Test("500 random values encoded by JSONValue.bytes read back the same")
    func roundTrip() throws {
        var generator = Generator(seed: 12)
        for _ in 0..<500 {
            let value = JSONValue.object(["v": Self.randomValue(depth: 0, using: &generator)])
            let read = try StrictJSON.parse(value.bytes, allowingScalars: false)
            #expect(Self.same(read, value), "\(String(decoding: value.bytes, as: UTF8.self))")
        }
    }
}
