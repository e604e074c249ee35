import Accelerometers
import FoundationEssentials
import Geometry
import HomeAssistant
import Level
import PictureRendering
import Sampling

/// `plumb bubble`: the bubble-level picture of one averaged reading, as the agent publishes it
/// on `P/bubble`.
struct BubbleCommand: Subcommand {
    static let name = "bubble"
    static let summary = "Draw the bubble-level picture of one reading as SVG or PNG."
    static let usage = "plumb bubble [--bus PATH | --sensor sim [--sim-roll D --sim-pitch D …]] [--address ADDR] "
        + "[--state-dir DIR | --config FILE | --raw] [--unit U] [--tolerance ANGLE] [--mount M] [--format svg|png] [--out FILE]"
    static let specs = SensorOptions.specs + CalibrationOptions.specs + [
        .value("--unit", "UNIT", "Unit of the tilt shown: deg (default), percent, mm_per_m or in_per_ft."),
        .value("--tolerance", "ANGLE", "Level tolerance, the target ring: degrees, or with a unit (\"1.5 mm/m\"). Default 0.1."),
        .mount,
        .value("--format", "FORMAT", "svg (default) or png: the 200 × 200 PNG the agent publishes on P/bubble."),
        .value("--out", "FILE", "Write the picture to FILE instead of standard output."),
    ]
    static let helpSummary = "Draws the bubble level for one reading (the average of one second of samples) as SVG or PNG: the\n"
        + "disc, the target ring for the tolerance, the bubble on the high side, green when level."
    static let footer = CalibrationOptions.helpText

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let sensor = try SensorOptions(parsed)
        let calibration = try CalibrationOptions(parsed)
        let unit = try parsed.angleUnit() ?? .deg
        let tolerance = try ReadCommand.parseTolerance(parsed.string("--tolerance"))
        let mount = try parsed.mount()
        let png = try parsed.choice("--format", from: ["svg", "png"]) == "png"

        // The picture is the agent's, which names no calibration; a damaged file's warning still
        // reaches stderr.
        let reading = try sensor.commandReading(for: name, parsed: parsed, mount: mount, tolerance: tolerance,
                                                calibrating: calibration, output: output)
        if reading.source == .agent { output.error("the bubble of \(ReadingSource.agent.text)") }
        let measurement = reading.measurement
        let picture = BubblePicture(levelGravity: measurement.levelGravity, mount: reading.mount, tolerance: reading.tolerance,
                                    level: measurement.isLevel ?? false, unit: unit)
        let file = parsed.string("--out")
        guard png else {
            if let file { try output.write(picture.svg, toFile: file) } else { output.print(picture.svg) }
            return 0
        }
        let renderer = PictureRenderer(scale: BubblePicture.pngScale)
        if let problem = renderer.text.problem() { output.error("warning: the picture shows no figures: \(problem).") }
        let bytes: [UInt8]
        do { bytes = try renderer.png(of: picture.scene) } catch { throw CommandFailure("\(error)") }
        if let file { try output.write(bytes, toFile: file) } else { output.printBytes(bytes) }
        return 0
    }
}
