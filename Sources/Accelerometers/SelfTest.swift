/// The result of a chip's self-test: per axis, the output change against the datasheet's limits.
public struct SelfTestReport: Sendable, Hashable, Codable {
    /// One axis's figures, in LSB at full resolution (256 LSB/g).
    public struct Axis: Sendable, Hashable, Codable {
        /// `x`, `y` or `z`.
        public var name: String
        /// Mean output with the self-test force off.
        public var off: Double
        /// Mean output with the self-test force on.
        public var on: Double
        /// `on − off`.
        public var delta: Double
        /// The smallest delta a working part shows at this supply voltage.
        public var minimum: Double
        /// The largest delta a working part shows at this supply voltage.
        public var maximum: Double
        /// Whether `delta` lies within the limits.
        public var passed: Bool { delta >= minimum && delta <= maximum }

        public init(name: String, off: Double, on: Double, minimum: Double, maximum: Double) {
            self.name = name
            self.off = off
            self.on = on
            self.delta = on - off
            self.minimum = minimum
            self.maximum = maximum
        }

        private enum CodingKeys: String, CodingKey { case name, off, on, delta, minimum, maximum, passed }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                name: try container.decode(String.self, forKey: .name),
                off: try container.decode(Double.self, forKey: .off),
                on: try container.decode(Double.self, forKey: .on),
                minimum: try container.decode(Double.self, forKey: .minimum),
                maximum: try container.decode(Double.self, forKey: .maximum))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(off, forKey: .off)
            try container.encode(on, forKey: .on)
            try container.encode(delta, forKey: .delta)
            try container.encode(minimum, forKey: .minimum)
            try container.encode(maximum, forKey: .maximum)
            try container.encode(passed, forKey: .passed)
        }
    }

    /// The chip tested.
    public var model: String
    /// The supply voltage the limits were scaled to.
    public var supplyVoltage: Double
    /// Samples averaged for each of the on and off means.
    public var samplesPerMean: Int
    /// X, Y and Z.
    public var axes: [Axis]
    /// How the test ran and the unit of its figures, for people: `±16 g full resolution, 100 Hz;
    /// LSB of 3.9 mg (256/g)`.
    public var conditions: String

    /// Whether every axis passed.
    public var passed: Bool { axes.allSatisfy(\.passed) }
}

/// The ADXL345's self-test limits (datasheet Table 15, ±2 g 10-bit or full resolution, which at
/// 256 LSB/g applies to every full-resolution range) and their supply-voltage scaling (Table 14).
public enum ADXL345SelfTestLimits {
    /// Limits at 2.5 V, in LSB.
    public static let atReferenceSupply: [(name: String, minimum: Double, maximum: Double)] = [
        ("x", 50, 540), ("y", -540, -50), ("z", 75, 875),
    ]

    /// Table 14: supply voltage → (X/Y factor, Z factor). The electrostatic force grows with VS².
    static let supplyScaling: [(volts: Double, xy: Double, z: Double)] = [
        (2.00, 0.64, 0.80), (2.50, 1.00, 1.00), (3.30, 1.77, 1.47), (3.60, 2.11, 1.69),
    ]

    /// The supply voltages the datasheet characterises.
    public static let supplyRange: ClosedRange<Double> = 2.0...3.6

    /// The X/Y and Z scale factors at `volts`, interpolated linearly between the table's rows; nil
    /// outside 2.0–3.6 V.
    public static func scaleFactors(atSupply volts: Double) -> (xy: Double, z: Double)? {
        guard supplyRange.contains(volts) else { return nil }
        for (low, high) in zip(supplyScaling, supplyScaling.dropFirst()) where volts <= high.volts {
            let t = (volts - low.volts) / (high.volts - low.volts)
            return (low.xy + t * (high.xy - low.xy), low.z + t * (high.z - low.z))
        }
        return nil
    }

    /// Per-axis (minimum, maximum) in LSB at `volts`, or nil outside the characterised range.
    public static func limits(atSupply volts: Double) -> [(name: String, minimum: Double, maximum: Double)]? {
        guard let factors = scaleFactors(atSupply: volts) else { return nil }
        return atReferenceSupply.map { axis in
            let factor = axis.name == "z" ? factors.z : factors.xy
            return (axis.name, axis.minimum * factor, axis.maximum * factor)
        }
    }
}
