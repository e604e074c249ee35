import Foundation
import Testing

/// The chip seam: above the drivers nothing names a chip; it asks the chip's description
/// (`ChipDescription`, through `ChipCatalog`), so a new chip is its driver, description,
/// simulator and tests, and nothing downstream changes.
@Suite("The chip seam: nothing above the drivers names a chip")
struct ChipSeamTests {
    /// The modules that are the chips': the drivers and descriptions, the bus, and (by their
    /// `Simulated` prefix) the simulators and the one table of which simulator plays which chip.
    static let chipModules: Set<String> = ["Accelerometers", "I2C", "CI2CDev"]
    /// The benchmarks, which measure each chip through its own simulator and driver by design:
    /// naming the part under test is their point, as a test's is.
    static let harnessModules: Set<String> = ["AccuracyBenchmark", "PlumbBench"]
    /// Code lines (not comments) above the drivers that name a chip. Ask the chip's description
    /// instead.
    static let limit = 0

    @Test("Code above the drivers names no chip")
    func noNewChipNames() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path)
            .filter { !Self.chipModules.contains($0) && !Self.harnessModules.contains($0) && !$0.hasPrefix("Simulated") }
        var found: [String] = []
        // Every model and type name of the supported chips: ADXL345, ADXL343, ADXL355Range,
        // MPU6050, MPU-6500, and a chip added later in the same families.
        let name = try Regex(#"\b(ADXL3\d\d|MPU-?\d{4})\w*"#)
        for module in modules {
            let directory = sources.appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    let code = line.drop { $0 == " " }
                    guard !code.hasPrefix("//") else { continue }
                    for match in code.matches(of: name) { found.append("\(module)/\(file): \(code[match.range])") }
                }
            }
        }
        #expect(found.count <= Self.limit, "\(found.count) names of a chip above the drivers:\n\(found.joined(separator: "\n"))")
    }
}
