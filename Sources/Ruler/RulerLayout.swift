import Geometry

/// A ruler of a given length drawn as the classic control draws it: graduations, pixels, and an
/// indicator whose pixel position reads back a length.
///
/// Every position is in the ruler's own unit (``length``'s) or in pixels from its start; nothing
/// accumulates, so the last tick of a 30 cm ruler is at exactly 30.
public struct RulerLayout: Sendable, Hashable {
    /// The most ticks a layout is drawn with; ``checkedTicks()`` refuses more.
    public static let maximumTicks = 20_000
    /// The longest ruler: 1 km.
    public static let maximumLength = Length(1000, .m)
    /// The widest ruler in pixels: 10,000,000 px.
    public static let maximumWidthPx: Double = 10_000_000

    /// How long the ruler is, in the unit it is graduated in.
    public let length: Length
    /// How each unit is divided.
    public let style: GraduationStyle
    /// Pixels per unit, always in ``length``'s unit.
    public let density: PixelDensity
    /// The index of the last tick: whole subdivisions that fit in the length.
    private let lastTick: Int

    /// Tolerance for the indicator beyond the ends: half the 0.001 px to which ``Tick/px`` and a
    /// reported width are rounded, so a width read back from a reply still lands on the ruler.
    private static let indicatorSlack = 0.0005

    /// A ruler `length` long.
    ///
    /// - Parameters:
    ///   - length: finite, greater than 0 and at most 1 km; graduated in its own unit.
    ///   - style: how to divide each unit; by default ``GraduationStyle/standard(for:)``.
    ///   - pixelsPerUnit: pixels per one unit of `length`; by default the classic density
    ///     (``PixelDensity/classic(for:)``). Finite, greater than 0, and such that the ruler is at
    ///     most ``maximumWidthPx`` wide.
    /// - Throws: ``RulerError`` of kind ``RulerError/Kind/invalid`` for any of the above. Too
    ///   many ticks is not an error here: check ``tickCount`` or call ``checkedTicks()``.
    public init(length: Length, style: GraduationStyle? = nil, pixelsPerUnit: Double? = nil) throws(RulerError) {
        let unit = length.unit
        self.length = try length.checkedPositive(naming: "the ruler's length")
        let style = style ?? .standard(for: unit)
        guard style.supports(unit) else {
            throw RulerError(.invalid, "\(style.unitsHint); use \(GraduationStyle.standard(for: unit).rawValue) for \(unit.symbol),"
                + " or give the length in a unit the style supports.")
        }
        self.style = style
        let density = pixelsPerUnit.map { PixelDensity(pixelsPerUnit: $0, per: unit) } ?? .classic(for: unit)
        guard density.pixelsPerUnit.isFinite, density.pixelsPerUnit > 0 else {
            throw RulerError(.invalid, "pixels per \(unit.symbol) must be a finite number greater than 0;"
                + " got \(density.pixelsPerUnit.plainText). Leave it out for the classic"
                + " \(PixelDensity.classic(for: unit).pixelsPerUnit.plainText) px/\(unit.symbol).")
        }
        self.density = density
        let width = length.value * density.pixelsPerUnit
        guard width <= Self.maximumWidthPx else {
            throw RulerError(.invalid, "\(length) at \(density.pixelsPerUnit.plainText) px/\(unit.symbol) would be"
                + " \(width.plainText) px wide; the limit is \(Int(Self.maximumWidthPx).groupedText) px:"
                + " give fewer pixels per unit or a shorter length.")
        }
        lastTick = Self.lastTickIndex(of: length.value, subdivisions: style.subdivisions)
    }

    /// The index of the last tick: the whole subdivisions in `value`. The tiny relative slack
    /// lets a length such as 2.3, whose product with 10 lands a hair under 23, keep its end tick.
    private static func lastTickIndex(of value: Double, subdivisions: Int) -> Int {
        Int((value * Double(subdivisions) * (1 + 1e-9)).rounded(.down))
    }

    /// How wide the ruler is in pixels: its length times the density.
    public var widthPx: Double { length.value * density.pixelsPerUnit }

    /// How many ticks ``ticks()`` returns, worked out without building them: from 0 up to the
    /// length, inclusive.
    public var tickCount: Int { lastTick + 1 }

    /// Every tick from 0 up to the length, inclusive; a length that is not a whole number of
    /// subdivisions ends at the last whole one (2.37 cm ends at the 2.3 tick).
    ///
    /// Builds ``tickCount`` ticks whatever their number; a caller answering a request checks
    /// ``tickCount`` first or calls ``checkedTicks()``.
    public func ticks() -> [Tick] {
        let subdivisions = style.subdivisions
        return (0...lastTick).map { index in
            let (whole, part) = index.quotientAndRemainder(dividingBy: subdivisions)
            let mark = style.mark(at: part)
            let at = Double(index) / Double(subdivisions)
            return Tick(at: at, px: pixel(at: at).rounded(toDecimals: 3), rank: mark.rank, height: mark.height,
                        label: mark.rank == 0 ? String(whole) : nil)
        }
    }

    /// ``ticks()``, or an error when there would be more than ``maximumTicks``.
    ///
    /// - Throws: ``RulerError`` of kind ``RulerError/Kind/tooLarge``, whose message says how many
    ///   ticks it would take and which coarser style or larger unit fits.
    public func checkedTicks() throws(RulerError) -> [Tick] {
        guard tickCount <= Self.maximumTicks else {
            throw RulerError(.tooLarge, "\(length) with \(style.rawValue) graduations would need"
                + " \(tickCount.groupedText) ticks; the limit is \(Self.maximumTicks.groupedText): \(coarserHint).")
        }
        return ticks()
    }

    /// The length the indicator reads at `px` pixels from the start, in the ruler's unit.
    ///
    /// - Throws: ``RulerError`` of kind ``RulerError/Kind/invalid`` when `px` is not finite or
    ///   lies off the ruler (outside 0…``widthPx``, give or take 0.0005 px of rounding).
    public func length(atPixel px: Double) throws(RulerError) -> Length {
        guard px.isFinite, px >= -Self.indicatorSlack, px <= widthPx + Self.indicatorSlack else {
            throw RulerError(.invalid, "the indicator at \(px.plainText) px is off the ruler, which runs from 0 to"
                + " \(widthPx.rounded(toDecimals: 3).plainText) px; give a pixel position within it.")
        }
        let clamped = min(max(px, 0), widthPx)
        return Length(clamped / density.pixelsPerUnit, length.unit)
    }

    /// The pixel position of `value`, in the ruler's unit, from the start; not rounded.
    public func pixel(at value: Double) -> Double {
        value * density.pixelsPerUnit
    }

    /// What to give instead of a ruler with too many ticks: a coarser style for the same unit,
    /// a larger unit, or, when neither fits, a shorter length.
    private var coarserHint: String {
        var options: [String] = []
        for other in GraduationStyle.allCases
        where other.subdivisions < style.subdivisions && other.supports(length.unit) && fits(length, other) {
            options.append("use \(other.rawValue) graduations")
        }
        let larger = LengthUnit.allCases.filter { $0.millimetres > length.unit.millimetres }
        let sameSystem = larger.filter { GraduationStyle.standard(for: $0) == GraduationStyle.standard(for: length.unit) }
        let fitting = sameSystem.filter { fits(length.converted(to: $0), .standard(for: $0)) }
        if !fitting.isEmpty {
            options.append("give the length in " + fitting.reversed().map(\.symbol).joined(separator: " or "))
        }
        guard options.isEmpty else { return options.joined(separator: ", or ") }
        let longest = Double(Self.maximumTicks - 1) / Double(style.subdivisions)
        return "give at most \(longest.plainText) \(length.unit.symbol), or the length in m"
    }

    private func fits(_ length: Length, _ style: GraduationStyle) -> Bool {
        Self.lastTickIndex(of: length.value, subdivisions: style.subdivisions) < Self.maximumTicks
    }
}
