import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import HomeAssistant
import Drawing
import Geometry
import Testing

@Suite("Bubble picture: the SVG document and its text")
struct BubbleSVGTests {
    /// Gravity for a pure tilt of `degrees` towards +x.
    static func tilted(_ degrees: Double) -> Vector3 {
        Attitude.gravity(roll: .zero, pitch: Angle(degrees: -degrees))
    }

    static func picture(_ gravity: Vector3?, level: Bool = true, unit: AngleUnit = .deg,
                        mount: Mount = .flat) -> BubblePicture {
        BubblePicture(levelGravity: gravity, mount: mount, tolerance: Angle(degrees: 0.1), level: level, unit: unit)
    }

    @Test("The tilt is written in the angle unit with its display decimals",
          arguments: [(AngleUnit.deg, "0.120°"), (.percent, "0.209%"), (.mmPerM, "2.09 mm/m"), (.inPerFt, "0.0251 in/ft")])
    func tiltText(unit: AngleUnit, text: String) {
        let svg = Self.picture(Self.tilted(0.12), unit: unit).svg
        #expect(svg.contains(">\(text)</text>"), "\(svg)")
        #expect(svg.contains("<title>Tilt \(text): level</title>"))
    }

    @Test("At 90° or more a slope unit has no value and shows a dash; degrees still show the angle")
    func noSlopeBeyondVertical() {
        for unit in [AngleUnit.percent, .mmPerM, .inPerFt] {
            #expect(Self.picture(Self.tilted(90), level: false, unit: unit).svg.contains(">—</text>"), "\(unit)")
            #expect(Self.picture(Vector3(x: 0, y: 0.1, z: -1), level: false, unit: unit).svg.contains(">—</text>"))
        }
        #expect(Self.picture(Self.tilted(90), level: false).svg.contains(">90.000°</text>"))
        #expect(Self.picture(Vector3(x: 0, y: 0, z: -1), level: false).svg.contains(">180.000°</text>"))
    }

    @Test("A long figure is set smaller so it stays inside the disc")
    func longFigures() {
        // 1000 · tan(89.99°) ≈ 5729578: "5729577.9x mm/m", 15 characters.
        let steep = Self.picture(Self.tilted(89.99), level: false, unit: .mmPerM).svg
        #expect(steep.contains(##"font-size="13" font-weight="bold" fill="#1f2328">57295"##))
        #expect(Self.picture(Self.tilted(1), unit: .mmPerM).svg.contains(#"font-size="20" font-weight="bold""#))
    }

    @Test("The label is in the half the bubble is not in, so the bubble never covers it")
    func labelAwayFromTheBubble() throws {
        let pattern = try NSRegularExpression(pattern: #"<text x="[0-9.]+" y="([0-9.]+)""#)
        for roll in [-3.0, -0.3, 0.3, 3.0] {
            let picture = Self.picture(Attitude.gravity(roll: Angle(degrees: roll), pitch: .zero), level: false)
            let bubble = try #require(picture.bubbleCentre)
            let svg = picture.svg
            let ys = pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).compactMap { match in
                Range(match.range(at: 1), in: svg).flatMap { Double(svg[$0]) }
            }
            #expect(ys.count == 2)
            let centre = BubblePicture.centre.y
            for y in ys {
                // The text's box runs about 20 units above its baseline; the bubble is 10 round.
                #expect((bubble.y > centre) == (y < centre), "roll \(roll): bubble at y \(bubble.y), text at \(y)")
                #expect(abs(y - 6 - bubble.y) > BubblePicture.bubbleRadius + 10 || abs(bubble.x - BubblePicture.centre.x) > 40,
                        "roll \(roll): the text at \(y) meets the bubble at \(bubble)")
            }
        }
    }

    @Test("Text is escaped for XML")
    func escaping() {
        #expect(#"<a & 'b'> "c""#.xmlEscaped == "&lt;a &amp; &apos;b&apos;&gt; &quot;c&quot;")
        #expect("0.120° —".xmlEscaped == "0.120° —")
    }

    @Test("Equal inputs give equal bytes; every coordinate has at most one decimal")
    func deterministicAndRounded() throws {
        let gravity = Vector3(x: 0.001234567, y: -0.000987654, z: 0.9999)
        let first = Self.picture(gravity, level: false, unit: .mmPerM)
        #expect(first == Self.picture(gravity, level: false, unit: .mmPerM))
        #expect(first.bytes == Array(first.svg.utf8))
        let attribute = try Regex(#"(?:cx|cy|r|x|y|d|width|height|viewBox|stroke-width|font-size)="([^"]*)""#)
        let number = try Regex(#"-?[0-9]+(?:\.[0-9]+)?"#)
        for match in first.svg.matches(of: attribute) {
            let value = String(match.output[1].substring ?? "")
            for figure in value.matches(of: number) {
                let text = String(first.svg[figure.range])
                #expect(text.split(separator: ".").dropFirst().first.map { $0.count <= 1 } ?? true, "\(text) in \(value)")
            }
        }
        let centre = try #require(first.bubbleCentre)
        #expect(first.svg.contains(#"<circle cx="\#(BubblePicture.number(centre.x))" cy="\#(BubblePicture.number(centre.y))" r="10""#))
    }

    @Test("A standalone SVG 1.1 document: well-formed, sized, no external references",
          arguments: [true, false])
    func standaloneDocument(withReading: Bool) throws {
        let picture = Self.picture(withReading ? Self.tilted(0.3) : nil, level: false, unit: .inPerFt, mount: .upright)
        let svg = picture.svg
        #expect(svg.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        let delegate = ElementCollector()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = delegate
        #expect(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "?")\n\(svg)")
        let root = try #require(delegate.elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["version"] == "1.1")
        #expect(root.attributes["width"] == "200" && root.attributes["height"] == "200")
        #expect(root.attributes["viewBox"] == "0 0 200 200")
        #expect(BubblePicture.size == 200)
        let names = Set(delegate.elements.map(\.name))
        #expect(names.isSubset(of: ["svg", "title", "circle", "path", "text"]), "\(names)")
        for element in delegate.elements {
            #expect(!element.attributes.keys.contains { $0.contains("href") }, "\(element.name)")
        }
        // No url(…) paint or font, and the namespace is the only URL.
        #expect(!svg.contains("url("))
        #expect(svg.components(separatedBy: "://").count == 2)
    }
}

/// Collects every element's name and attributes, in document order.
final class ElementCollector: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
    }

    var elements: [Element] = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        elements.append(Element(name: elementName, attributes: attributeDict))
    }
}
