import BrokerHarness
import Foundation
import Drawing
import Geometry
import HomeAssistant
import PictureRendering
import Testing

/// librsvg (what GNOME and many image pipelines use) renders every kind of picture.
@Suite("Bubble picture: rsvg-convert renders it")
struct BubbleRenderTests {
    static let pictures: [(name: String, picture: BubblePicture)] = [
        ("level", BubblePicture(levelGravity: Vector3(x: 0.0005, y: -0.0003, z: 1), mount: .flat,
                                tolerance: Angle(degrees: 0.1), level: true, unit: .deg)),
        ("not-level", BubblePicture(levelGravity: Vector3(x: -0.2, y: 0.3, z: 0.9), mount: .flat,
                                    tolerance: Angle(degrees: 0.1), level: false, unit: .mmPerM)),
        ("upright", BubblePicture(levelGravity: Vector3(x: 0.01, y: 0.2, z: 0.98), mount: .upright,
                                  tolerance: Angle(degrees: 1), level: false, unit: .inPerFt)),
        ("steep", BubblePicture(levelGravity: Attitude.gravity(roll: .zero, pitch: Angle(degrees: -89.99)), mount: .flat,
                                tolerance: Angle(degrees: 0.1), level: false, unit: .mmPerM)),
        ("on-edge", BubblePicture(levelGravity: Vector3(x: 1, y: 0, z: 0), mount: .flat,
                                  tolerance: Angle(degrees: 0.1), level: false, unit: .percent)),
        ("no-reading", BubblePicture(levelGravity: nil, mount: .flat, tolerance: Angle(degrees: 0.1),
                                     level: false, unit: .deg)),
    ]

    @Test("Each picture renders to a PNG of the requested size", arguments: [200, 64])
    func rendersToPNG(side: Int) async throws {
        guard let rsvg = executableOnPath("rsvg-convert") else {
            Issue.record("rsvg-convert is missing: install it with `sudo apt-get install -y librsvg2-bin`.")
            return
        }
        let directory = try makeTemporaryDirectoryURL()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, picture) in Self.pictures {
            let source = directory.appendingPathComponent("\(name).svg")
            let output = directory.appendingPathComponent("\(name).png")
            try Data(picture.bytes).write(to: source)
            let result = try await offThePool { try run(rsvg, ["-w", "\(side)", "-h", "\(side)", "-o", output.path, source.path], in: directory) }
            #expect(result.status == 0, "rsvg-convert failed on \(name): \(result.stderr)")
            #expect(result.stderr.isEmpty, "rsvg-convert warned on \(name): \(result.stderr)")
            let png = try [UInt8](Data(contentsOf: output))
            try #require(png.count > 24, "\(name).png is \(png.count) bytes")
            #expect(Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "\(name).png is not a PNG")
            #expect(Array(png[12..<16]) == Array("IHDR".utf8))
            #expect(bigEndian(png[16..<20]) == side && bigEndian(png[20..<24]) == side, "\(name).png size")
        }
    }

    @Test("Without a requested size it renders at the document's own 200 × 200")
    func naturalSize() async throws {
        guard let rsvg = executableOnPath("rsvg-convert") else {
            Issue.record("rsvg-convert is missing: install it with `sudo apt-get install -y librsvg2-bin`.")
            return
        }
        let directory = try makeTemporaryDirectoryURL()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("x.svg")
        try Data(Self.pictures[0].picture.bytes).write(to: source)
        let output = directory.appendingPathComponent("x.png")
        let result = try await offThePool { try run(rsvg, ["-o", output.path, source.path], in: directory) }
        #expect(result.status == 0, "\(result.stderr)")
        let png = try [UInt8](Data(contentsOf: output))
        try #require(png.count > 24)
        #expect(bigEndian(png[16..<20]) == Int(BubblePicture.size) && bigEndian(png[20..<24]) == Int(BubblePicture.size))
    }

    private func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}

/// The agent's own PNG against librsvg's rendering of the same picture's SVG: the rasterizer and
/// FreeType must draw what a browser would draw from the SVG.
@Suite("Bubble picture: the PNG matches librsvg")
struct BubblePNGTests {
    /// Mean absolute difference per channel (0…255) over the pixels where `include` holds.
    static func meanDifference(_ a: PNG.Image, _ b: PNG.Image, include: (Int, Int) -> Bool) -> Double {
        var total = 0, count = 0
        for y in 0..<a.height {
            for x in 0..<a.width where include(x, y) {
                let (p, q) = (a.pixel(x: x, y: y), b.pixel(x: x, y: y))
                // Compare premultiplied, so a colour under zero alpha does not count.
                func pre(_ c: UInt8, _ alpha: UInt8) -> Int { Int(c) * Int(alpha) / 255 }
                total += abs(pre(p.red, p.alpha) - pre(q.red, q.alpha)) + abs(pre(p.green, p.alpha) - pre(q.green, q.alpha))
                    + abs(pre(p.blue, p.alpha) - pre(q.blue, q.alpha)) + abs(Int(p.alpha) - Int(q.alpha))
                count += 4
            }
        }
        return Double(total) / Double(max(count, 1))
    }

    @Test("Every kind of picture: shapes within half a level on average, text within 10")
    func matchesLibrsvg() async throws {
        guard let rsvg = executableOnPath("rsvg-convert") else {
            Issue.record("rsvg-convert is missing: install it with `sudo apt-get install -y librsvg2-bin`.")
            return
        }
        let directory = try makeTemporaryDirectoryURL()
        defer { try? FileManager.default.removeItem(at: directory) }
        let side = Int(BubblePicture.size * BubblePicture.pngScale)
        for (name, picture) in BubbleRenderTests.pictures {
            let source = directory.appendingPathComponent("\(name).svg")
            let output = directory.appendingPathComponent("\(name).png")
            try Data(picture.bytes).write(to: source)
            let result = try await offThePool {
                try run(rsvg, ["-w", "\(side)", "-h", "\(side)", "-o", output.path, source.path], in: directory)
            }
            try #require(result.status == 0, "rsvg-convert failed on \(name): \(result.stderr)")
            let reference = try PNG.decode([UInt8](Data(contentsOf: output)))
            let ours = try PNG.decode(PictureRenderer(scale: BubblePicture.pngScale).png(of: picture.scene))
            #expect(ours.width == side && ours.height == side)
            // The text's rows: glyph hinting differs a little between FreeType direct and Pango.
            let textRows = Set(picture.scene.items.flatMap { item -> [Int] in
                guard case let .text(text) = item else { return [] }
                let base = Int(text.baseline * BubblePicture.pngScale)
                return Array((base - Int(text.size * BubblePicture.pngScale) - 2)...(base + Int(text.size * BubblePicture.pngScale / 3) + 2))
            })
            let shapes = Self.meanDifference(ours, reference) { _, y in !textRows.contains(y) }
            let text = Self.meanDifference(ours, reference) { _, y in textRows.contains(y) }
            #expect(shapes < 0.5, "\(name): shapes differ by \(shapes) levels on average")
            #expect(text < 10, "\(name): text rows differ by \(text) levels on average")
        }
    }

    @Test("The published PNG is a palette of the full-colour picture: every pixel within 4 levels, under 6 KB")
    func paletteKeepsThePicture() throws {
        let renderer = PictureRenderer(scale: BubblePicture.pngScale)
        for (name, picture) in BubbleRenderTests.pictures {
            let published = try renderer.png(of: picture.scene)
            let full = try PNG.decode(PNG.encode(picture.scene.rasterized(scale: renderer.scale, text: renderer.text)))
            let reduced = try PNG.decode(published)
            #expect(published[25] == 3, "\(name): colour type \(published[25]), not a palette")
            #expect(published.count < 6_000, "\(name): \(published.count) bytes")
            var worst = 0
            for y in 0..<full.height {
                for x in 0..<full.width {
                    let (p, q) = (full.pixel(x: x, y: y), reduced.pixel(x: x, y: y))
                    func pre(_ c: UInt8, _ alpha: UInt8) -> Int { Int(c) * Int(alpha) / 255 }
                    worst = max(worst, abs(pre(p.red, p.alpha) - pre(q.red, q.alpha)), abs(pre(p.green, p.alpha) - pre(q.green, q.alpha)),
                                abs(pre(p.blue, p.alpha) - pre(q.blue, q.alpha)), abs(Int(p.alpha) - Int(q.alpha)))
                }
            }
            #expect(worst <= 4, "\(name): a pixel is \(worst) levels from the full-colour picture")
        }
    }
}
