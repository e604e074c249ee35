import Accelerometers
import Drawing
import Foundation
import Geometry
import HomeAssistant
import PictureRendering

/// What one bubble picture costs the agent (docs/reference/home-assistant.md, "The bubble picture"): the scene, the
/// rasterizing with FreeType's text, the median cut to a palette and libpng, for the pictures a
/// rocking machine draws (a ±2° sweep in 0.1° steps, in degrees and in mm/m), and the PNG's size.
/// A rocking machine draws at most one a second.
func benchmarkBubblePicture() {
    let renderer = PictureRenderer(scale: BubblePicture.pngScale)
    if let problem = renderer.text.problem() { print("bubble picture:    no font (\(problem)): the figures leave the text out") }
    let rolls = stride(from: -2.0, through: 2.0, by: 0.1).map { Angle(degrees: $0) }
    let pictures = AngleUnit.allCases.flatMap { unit in
        rolls.map { roll in
            BubblePicture(levelGravity: Attitude.gravity(roll: roll, pitch: Angle(degrees: 0.3)), mount: .flat,
                          tolerance: Angle(degrees: 0.5), level: abs(roll.degrees) < 0.5, unit: unit)
        }
    }
    var sizes: [Int] = []
    var rasterSeconds = 0.0, paletteSeconds = 0.0, encodeSeconds = 0.0
    do {
        _ = try renderer.png(of: pictures[0].scene)  // FreeType loads its face once.
        let cpuStart = cpuSeconds()
        for picture in pictures {
            let start = clock.now()
            let canvas = picture.scene.rasterized(scale: renderer.scale, text: renderer.text)
            let rastered = clock.now()
            let indexed = canvas.indexed()
            let quantized = clock.now()
            let png = try PNG.encode(indexed)
            let end = clock.now()
            rasterSeconds += rastered - start
            paletteSeconds += quantized - rastered
            encodeSeconds += end - quantized
            sizes.append(png.count)
        }
        let cpu = cpuSeconds() - cpuStart
        let count = Double(pictures.count)
        let total = (rasterSeconds + paletteSeconds + encodeSeconds) / count
        sizes.sort()
        print("bubble picture:    \(pictures.count) pictures of \(Int(BubblePicture.size * renderer.scale)) px: "
              + "\(figure(total * 1000, 2)) ms each (raster \(figure(rasterSeconds / count * 1000, 2)), palette "
              + "\(figure(paletteSeconds / count * 1000, 2)), libpng \(figure(encodeSeconds / count * 1000, 2))), "
              + "\(figure(cpu / count * 1000, 2)) ms CPU")
        print("                   PNG \(sizes[0])–\(sizes[sizes.count - 1]) bytes, median \(sizes[sizes.count / 2]); "
              + "one a second is \(figure(total * 100, 2)) % of one core")
        print("targets:           under 10 ms a picture (1 % of a core at one a second): \(total < 0.010 ? "met" : "MISSED"); "
              + "under 6 KB: \(sizes[sizes.count - 1] < 6000 ? "met" : "MISSED")")
    } catch {
        print("bubble picture:    failed: \(error)")
    }
}
