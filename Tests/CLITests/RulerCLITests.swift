import Foundation
import Testing

/// `plumb ruler` and `plumb convert` run as subprocesses: the service's answers, the text, the
/// SVG as a renderer sees it, and the exit status of every kind of mistake.
@Suite("plumb ruler and convert end to end")
struct RulerCLITests {
    private func json(_ arguments: [String]) async throws -> [String: Any] {
        let outcome = try await PlumbProcess.run(arguments)
        #expect(outcome.status == 0, "\(outcome)")
        return try #require(try outcome.jsonObjects().first, "\(outcome)")
    }

    // MARK: ruler

    @Test func aThirtyCentimetreRulerHas301TicksOver2400Pixels() async throws {
        let data = try await json(["ruler", "30cm", "--json"])
        #expect(data["tick_count"] as? Int == 301)
        #expect(data["width_px"] as? Double == 2400)
        #expect(data["px_per_unit"] as? Double == 80)
        #expect(data["style"] as? String == "metric")
        #expect(data["unit"] as? String == "cm")
        #expect((data["length"] as? [String: Double])?["mm"] == 300)
        let ticks = try #require(data["ticks"] as? [[String: Any]])
        #expect(ticks.count == 301)
        #expect(ticks.last?["at"] as? Double == 30)
        #expect(ticks.last?["label"] as? String == "30")
        #expect(ticks.last?["px"] as? Double == 2400)
    }

    @Test func aFractionalTwoInchRulerHasEveryBinaryDivision() async throws {
        let data = try await json(["ruler", "2in", "--style", "fractional", "--json"])
        #expect(data["tick_count"] as? Int == 33)
        let ticks = try #require(data["ticks"] as? [[String: Any]])
        #expect(ticks.count == 33)
        #expect(Set(ticks.compactMap { $0["height"] as? Double }) == [1, 0.5, 0.25, 0.125, 0.0625])
        #expect(ticks.compactMap { $0["label"] as? String } == ["0", "1", "2"])
    }

    @Test func aMixedNumberReadsTheSameQuotedOrAsTwoArguments() async throws {
        let quoted = try await PlumbProcess.run(["ruler", "1 3/16in", "--json"])
        let split = try await PlumbProcess.run(["ruler", "1", "3/16in", "--json"])
        #expect(quoted.status == 0 && split.status == 0, "\(quoted)\n\(split)")
        #expect(quoted.stdout == split.stdout)
        let data = try #require(try quoted.jsonObjects().first)
        #expect((data["length"] as? [String: Double])?["in"] == 1.1875)
        #expect(data["width_px"] as? Double == 237.5)
    }

    @Test func theIndicatorReadsTheLengthAtItsPixel() async throws {
        let data = try await json(["ruler", "30cm", "--indicator-px", "412", "--json"])
        let indicator = try #require(data["indicator"] as? [String: Any])
        #expect(indicator["px"] as? Double == 412)
        #expect(indicator["at"] as? Double == 5.15)
        let text = try await PlumbProcess.run(["ruler", "30cm", "--indicator-px", "412"])
        #expect(text.stdout.contains("412 px reads 5.15 cm"), "\(text)")
    }

    @Test func theTextSummaryGivesTheFiguresAtAGlance() async throws {
        let outcome = try await PlumbProcess.run(["ruler", "30cm"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("300 mm, 30 cm, 0.3 m, 11.811024 in, 0.984252 ft"))
        #expect(outcome.stdout.contains("2400 px"))
        #expect(outcome.stdout.contains("301"))
        #expect(outcome.stdout.contains("|::::!::::|"))
    }

    @Test(arguments: [
        (["ruler", "2500cm"], "give the length in m"),
        (["ruler", "1500in", "--style", "fractional"], "use decimal graduations"),
    ] as [([String], String)])
    func tooManyTicksFailsWithTheDomainsHint(arguments: [String], hint: String) async throws {
        let outcome = try await PlumbProcess.run(arguments)
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.stderr.contains("the limit is 20,000"), "\(outcome)")
        #expect(outcome.stderr.contains(hint), "\(outcome)")
        #expect(!outcome.stderr.contains("Usage"))
        #expect(outcome.stdout.isEmpty)
    }

    // MARK: ruler --svg

    @Test(arguments: [
        ["30cm"],
        ["2in", "--style", "fractional"],
        ["30cm", "--indicator-px", "412"],
    ])
    func theSVGRendersAtTheSizeItDeclares(arguments: [String]) async throws {
        let renderer = try #require(SVGRendering.renderer, Comment(rawValue: SVGRendering.installHint))
        let directory = try SVGRendering.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svgFile = directory.appendingPathComponent("ruler.svg")
        let outcome = try await PlumbProcess.run(["ruler"] + arguments + ["--svg", svgFile.path])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderr.contains("wrote \(svgFile.path)"))

        let svg = try String(contentsOf: svgFile, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml"))
        #expect(!svg.contains("href"), "a standalone file has no external references")
        let root = SVGRendering.rootAttributes(svg)
        #expect(root["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root["version"] == "1.1")
        let width = try #require(root["width"].flatMap { Int($0) }, "\(root)")
        let height = try #require(root["height"].flatMap { Int($0) }, "\(root)")
        #expect(root["viewBox"] == "0 0 \(width) \(height)")

        let png = directory.appendingPathComponent("ruler.png")
        let rendered = try SVGRendering.render(svgFile, to: png, with: renderer)
        #expect(rendered.status == 0, "\(rendered.output)")
        let size = try #require(try SVGRendering.pngSize(png), "not a PNG")
        #expect(size.width == width)
        #expect(size.height == height)
    }

    @Test func theSVGDrawsEachRankAsOnePathWithLabelsAndTheIndicator() async throws {
        let directory = try SVGRendering.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("a.svg")
        let second = directory.appendingPathComponent("b.svg")
        for file in [first, second] {
            let outcome = try await PlumbProcess.run(["ruler", "30cm", "--indicator-px", "412", "--svg", file.path])
            #expect(outcome.status == 0, "\(outcome)")
        }
        let svg = try String(contentsOf: first, encoding: .utf8)
        #expect(try Data(contentsOf: first) == Data(contentsOf: second), "the drawing is deterministic")
        // Metric: whole units, halves and tenths.
        #expect(svg.components(separatedBy: "<path ").count - 1 == 3)
        // 301 ticks: one "M" per tick across the paths.
        let moves = svg.components(separatedBy: "\n").filter { $0.hasPrefix("<path ") }
            .map { $0.filter { $0 == "M" }.count }.reduce(0, +)
        #expect(moves == 301)
        #expect(svg.contains(">0</text>") && svg.contains(">30</text>"))
        #expect(svg.contains(">cm</text>"))
        #expect(svg.contains("#d0021b") && svg.contains("412 px = 5.15 cm"))
    }

    // Not timed: a wall-clock limit in a unit test fails on a loaded machine (it took 8.9 s of a
    // 5 s limit under `make test`); speed belongs to `make bench`.
    @Test func theLongestRulerDraws() async throws {
        let directory = try SVGRendering.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("long.svg")
        let outcome = try await PlumbProcess.run(["ruler", "1999.9cm", "--svg", file.path])
        #expect(outcome.status == 0, "\(outcome)")
        let svg = try String(contentsOf: file, encoding: .utf8)
        #expect(svg.components(separatedBy: "<path ").count - 1 == 3)
        #expect(svg.utf8.count < 1_000_000, "about 17 bytes a tick")
    }

    // MARK: convert

    @Test func aMixedNumberOfInchesConvertsExactlyToMillimetres() async throws {
        let data = try await json(["convert", "1", "3/16in", "mm", "--json"])
        #expect(data["result"] as? Double == 30.1625)
        #expect(data["exact"] as? Bool == true)
        #expect(data["from"] as? String == "in")
        #expect(data["value"] as? Double == 1.1875)
        let text = try await PlumbProcess.run(["convert", "1 3/16in", "mm"])
        #expect(text.stdout == "1 3/16 in = 30.1625 mm\n", "\(text)")
    }

    @Test func valueFromAndToAsThreeWords() async throws {
        let data = try await json(["convert", "12", "in", "cm", "--json"])
        #expect(data["result"] as? Double == 30.48)
        let text = try await PlumbProcess.run(["convert", "1", "mm", "in"])
        #expect(text.stdout == "1 mm ≈ 0.03937 in\n", "rounded figures say so: \(text)")
    }

    @Test func pixelsConvertAtTheClassicOrAGivenDensity() async throws {
        let classic = try await json(["convert", "400", "px", "cm", "--json"])
        #expect(classic["result"] as? Double == 5)
        #expect(classic["px_per_unit"] as? Double == 80)
        #expect(classic["px_unit"] as? String == "cm")
        let inches = try await json(["convert", "2in", "px", "--json"])
        #expect(inches["result"] as? Double == 400, "200 px/in")
        let given = try await json(["convert", "2", "in", "px", "--px-per-unit", "96", "--px-unit", "in", "--json"])
        #expect(given["result"] as? Double == 192)
        let text = try await PlumbProcess.run(["convert", "192", "px", "in", "--px-per-unit", "96"])
        #expect(text.stdout == "192 px = 2 in (at 96 px/in)\n", "\(text)")
    }

    // MARK: mistakes

    @Test(arguments: [
        (["ruler", "30furlongs"], "\"furlongs\" is not a unit"),
        (["ruler", "abc"], "does not start with a number"),
        (["ruler", "30"], "has no unit"),
        (["ruler"], "plumb ruler 30cm"),
        (["ruler", "30cm", "--style", "fractional"], "--style fractional: fractional graduations are for inches"),
        (["ruler", "2in", "--style", "metric"], "use decimal for in"),
        (["ruler", "30cm", "--style", "bogus"], "--style takes metric, decimal or fractional"),
        (["ruler", "30cm", "--px-per-unit", "0"], "--px-per-unit"),
        (["ruler", "30cm", "--px-per-unit", "many"], "--px-per-unit"),
        (["ruler", "30cm", "--indicator-px", "5000"], "off the ruler"),
        (["ruler", "1001m"], "at most 1000 m"),
        (["ruler", "30cm", "40cm", "50cm", "60cm"], "unexpected argument"),
        (["convert", "12", "furlongs", "cm"], "\"furlongs\" is not a unit"),
        (["convert", "12", "in", "furlongs"], "'furlongs' is not a unit to convert to"),
        (["convert", "1/0in", "mm"], "cannot have 0 below the line"),
        (["convert", "12", "cm"], "has no unit"),
        (["convert", "12in"], "plumb convert 12 in cm"),
        (["convert", "12", "in", "cm", "--px-per-unit", "96"], "apply only when converting to or from px"),
        (["convert", "12", "px", "cm", "--px-per-unit", "-1"], "greater than 0"),
        (["convert", "12", "px", "cm", "--px-unit", "px"], "--px-unit takes a length unit"),
        (["convert", "2000", "m", "mm"], "within 1 km"),
    ] as [([String], String)])
    func mistakesPrintUsageAndExitTwo(arguments: [String], mentioned: String) async throws {
        try await PlumbProcess.expectUsageError(arguments, mentioning: mentioned, usage: "Usage: plumb \(arguments[0])")
    }
}
