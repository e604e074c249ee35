import Geometry
import Testing

// Helpers for the matrix tests. TestSupport.swift has its own small `Matrix3` for building
// orientations, which shadows the module's type in this target, so the module's is named in full
// here.

typealias DomainMatrix = Geometry.Matrix3

extension SplitMix64 {
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }
}

func expectClose(
    _ actual: DomainMatrix, _ expected: DomainMatrix, tolerance: Double, _ what: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        actual.maxDifference(from: expected) <= tolerance,
        "\(what) \(actual.rowArrays) is not within \(tolerance) of \(expected.rowArrays)",
        sourceLocation: sourceLocation
    )
}
