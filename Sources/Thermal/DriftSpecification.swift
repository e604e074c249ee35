import Geometry

/// What a chip's datasheet says of how its output moves with temperature: the zero-g offset's
/// temperature coefficient per axis and the sensitivity's, as typical magnitudes (the ± figure a
/// datasheet calls typical) and, where it states one, a worst case.
///
/// Two readers: the simulators draw each part's coefficients from it, and, where Plumb has learned
/// no drift model for the part, the uncertainty counts the typical figure as a prior (never
/// applied to the reading: its sign is unknown).
public struct DriftSpecification: Sendable, Hashable {
    /// Typical |offset drift| per axis, in g/°C.
    public var offsetTypical: Vector3
    /// The worst case the datasheet states per axis, in g/°C; the typical figure where it states none.
    public var offsetMaximum: Vector3
    /// Typical |sensitivity drift|, a fraction per °C (0.0001 is ±0.01 %/°C).
    public var sensitivityTypical: Double
    /// The temperature the datasheet's offsets and sensitivity are specified at, °C.
    public var referenceCelsius: Double
    /// Where the figures come from, for docs and messages: `ADXL345 datasheet Rev. G, Table 1`.
    public var source: String

    public init(offsetTypical: Vector3, offsetMaximum: Vector3? = nil, sensitivityTypical: Double,
                referenceCelsius: Double = 25, source: String) {
        self.offsetTypical = offsetTypical
        self.offsetMaximum = offsetMaximum ?? offsetTypical
        self.sensitivityTypical = sensitivityTypical
        self.referenceCelsius = referenceCelsius
        self.source = source
    }
}
