import Geometry

/// How many screen pixels make one unit of length.
///
/// The classic on-screen ruler control draws 80 px per centimetre and 200 px per inch; a density
/// stated per one unit converts to any other through ``Length``, so `PixelDensity.classic(for: .mm)`
/// (8 px/mm) and `classic(for: .cm)` (80 px/cm) describe the same screen.
public struct PixelDensity: Sendable, Hashable {
    /// Pixels per ``unit``. Must be finite and greater than 0 to mean anything; ``RulerLayout``
    /// checks it, this type does not.
    public var pixelsPerUnit: Double
    /// The physical unit ``pixelsPerUnit`` counts per.
    public var unit: LengthUnit

    /// `pixelsPerUnit` pixels per one `unit`: `PixelDensity(pixelsPerUnit: 80, per: .cm)`.
    public init(pixelsPerUnit: Double, per unit: LengthUnit) {
        self.pixelsPerUnit = pixelsPerUnit
        self.unit = unit
    }

    /// The classic control's density expressed in `unit`: 80 px/cm for mm, cm, m (8, 80, 8000),
    /// 200 px/in for in, ft (200, 2400).
    public static func classic(for unit: LengthUnit) -> PixelDensity {
        switch unit {
        case .mm: PixelDensity(pixelsPerUnit: 8, per: .mm)
        case .cm: PixelDensity(pixelsPerUnit: 80, per: .cm)
        case .m: PixelDensity(pixelsPerUnit: 8000, per: .m)
        case .in: PixelDensity(pixelsPerUnit: 200, per: .in)
        case .ft: PixelDensity(pixelsPerUnit: 2400, per: .ft)
        }
    }

    /// The pixels `length` spans at this density; negative for a negative length.
    public func pixels(in length: Length) -> Double {
        length.converted(to: unit).value * pixelsPerUnit
    }

    /// The length `px` pixels span at this density, in `unit`.
    public func length(ofPixels px: Double, in unit: LengthUnit) -> Length {
        Length(px / pixelsPerUnit, self.unit).converted(to: unit)
    }
}
