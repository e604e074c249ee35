import Geometry

extension Scene {
    /// The picture as a standalone SVG 1.1 document, UTF-8, every coordinate rounded to 0.1 user
    /// unit, so equal scenes give equal bytes.
    public var svg: String {
        let (width, height) = (Self.number(self.width), Self.number(self.height))
        var svg = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        svg += #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1""#
            + #" width="\#(width)" height="\#(height)" viewBox="0 0 \#(width) \#(height)">"# + "\n"
        if let title { svg += "<title>\(title.xmlEscaped)</title>\n" }
        for item in items {
            switch item {
            case .circle(let circle): svg += Self.element(circle)
            case .lines(let lines): svg += Self.element(lines)
            case .text(let text): svg += Self.element(text)
            }
        }
        return svg + "</svg>\n"
    }

    private static func element(_ circle: Circle) -> String {
        let fill = circle.fill.map { paint("fill", $0) } ?? #" fill="none""#
        let stroke = circle.stroke.map { paint("stroke", $0.colour) + #" stroke-width="\#(number($0.width))""# } ?? ""
        return #"<circle cx="\#(number(circle.centre.x))" cy="\#(number(circle.centre.y))" r="\#(number(circle.radius))""#
            + fill + stroke + "/>\n"
    }

    private static func element(_ lines: Lines) -> String {
        let path = lines.segments.map {
            "M\(number($0.start.x)) \(number($0.start.y))L\(number($0.end.x)) \(number($0.end.y))"
        }.joined()
        return #"<path d="\#(path)" fill="none""# + paint("stroke", lines.stroke.colour)
            + #" stroke-width="\#(number(lines.stroke.width))"/>"# + "\n"
    }

    private static func element(_ text: Text) -> String {
        #"<text x="\#(number(text.centreX))" y="\#(number(text.baseline))" text-anchor="middle" font-family="sans-serif""#
            + #" font-size="\#(number(text.size))"\#(text.bold ? #" font-weight="bold""# : "")"# + paint("fill", text.colour)
            + ">" + text.string.xmlEscaped + "</text>\n"
    }

    /// ` fill="#rrggbb"`, with ` fill-opacity` when the colour is not opaque.
    private static func paint(_ attribute: String, _ colour: Colour) -> String {
        #" \#(attribute)="\#(colour.hex)""# + (colour.opacity < 1 ? #" \#(attribute)-opacity="\#(number(colour.opacity))""# : "")
    }

    /// A coordinate as written: rounded to 0.1, `100` rather than `100.0`, never `-0`.
    public static func number(_ value: Double) -> String {
        var value = (value * 10).rounded() / 10
        if value == 0 { value = 0 }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
