import Geometry
import GeometryTesting
import Testing

// Helpers for the matrix tests. `DomainMatrix` is the module's `Matrix3`, the one under test;
// GeometryTesting's `ReferenceMatrix` builds orientations independently of it.

typealias DomainMatrix = Geometry.Matrix3

extension SplitMix64 {
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }
}

