import Geometry
import GeometryTesting
import Level
import Testing

/// The textbook two-pass mean and sample standard deviation, one axis at a time.
private func twoPass(_ samples: [Vector3]) -> (mean: Vector3, standardDeviation: Vector3) {
    let n = Double(samples.count)
    let mean = samples.reduce(Vector3.zero, +) / n
    let squares = samples.reduce(Vector3.zero) { sum, s in
        let d = s - mean
        return sum + Vector3(x: d.x * d.x, y: d.y * d.y, z: d.z * d.z)
    }
    let variance = squares / (n - 1)
    return (mean, Vector3(x: variance.x.squareRoot(), y: variance.y.squareRoot(), z: variance.z.squareRoot()))
}

/// Noisy samples around `center`, uniform within ±`noise` per axis, reproducible.
private func noisySamples(count: Int, center: Vector3, noise: Double, seed: UInt64) -> [Vector3] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { _ in
        center + Vector3(
            x: Double.random(in: -noise...noise, using: &random),
            y: Double.random(in: -noise...noise, using: &random),
            z: Double.random(in: -noise...noise, using: &random)
        )
    }
}

private func expectRelativelyClose(
    _ actual: Vector3, _ expected: Vector3, relative: Double, sourceLocation: SourceLocation = #_sourceLocation
) {
    for (a, e) in [(actual.x, expected.x), (actual.y, expected.y), (actual.z, expected.z)] {
        expectClose(a, e, tolerance: abs(e) * relative, sourceLocation: sourceLocation)
    }
}

@Suite("GravityAverage")
struct GravityAverageTests {
    @Test("Empty: count 0, no mean, no spread")
    func empty() {
        let average = GravityAverage()
        #expect(average.count == 0)
        #expect(average.mean == nil)
        #expect(average.standardDeviation == nil)
        #expect(average.standardErrorOfMean == nil)
    }

    @Test("One sample: it is the mean, and there is no spread yet")
    func single() {
        var average = GravityAverage()
        let sample = Vector3(x: 0.1, y: -0.2, z: 0.98)
        let used = average.add(sample)
        #expect(used)
        #expect(average.count == 1)
        #expect(average.mean == sample)
        #expect(average.standardDeviation == nil)
    }

    @Test("Two samples (1,2,3) and (3,4,6): mean (2,3,4.5), sample deviations √2, √2, √4.5")
    func twoSamples() {
        let average = GravityAverage([Vector3(x: 1, y: 2, z: 3), Vector3(x: 3, y: 4, z: 6)])
        #expect(average.count == 2)
        #expect(average.mean == Vector3(x: 2, y: 3, z: 4.5))
        expectClose(average.standardDeviation!, Vector3(x: 2.0.squareRoot(), y: 2.0.squareRoot(), z: 4.5.squareRoot()))
        expectClose(average.standardErrorOfMean!, Vector3(x: 1, y: 1, z: 1.5), tolerance: 1e-12)
    }

    @Test("Constant samples have zero spread")
    func constant() {
        let g = Vector3(x: 0.01, y: 0.02, z: 1.0)
        let average = GravityAverage(Array(repeating: g, count: 1000))
        expectClose(average.mean!, g, tolerance: 1e-15)
        expectClose(average.standardDeviation!, .zero, tolerance: 1e-15)
    }

    @Test("Welford matches the two-pass computation on accelerometer-like noise",
          arguments: [(10, 1e-3), (1000, 4e-3), (20_000, 1e-4)])
    func matchesTwoPass(count: Int, noise: Double) throws {
        let samples = noisySamples(count: count, center: Vector3(x: 0.01, y: -0.02, z: 0.99), noise: noise, seed: 42)
        let average = GravityAverage(samples)
        let expected = twoPass(samples)
        #expect(average.count == count)
        expectRelativelyClose(try #require(average.mean), expected.mean, relative: 1e-12)
        expectRelativelyClose(try #require(average.standardDeviation), expected.standardDeviation, relative: 1e-9)
        let error = try #require(average.standardErrorOfMean)
        expectRelativelyClose(error, expected.standardDeviation / Double(count).squareRoot(), relative: 1e-9)
    }

    @Test("Stable when the spread is tiny next to the mean, where a sum of squares cancels to nothing")
    func largeOffset() throws {
        let samples = noisySamples(count: 5000, center: Vector3(x: 1e9, y: -1e9, z: 1e8), noise: 1, seed: 7)
        let average = GravityAverage(samples)
        let expected = twoPass(samples)
        expectRelativelyClose(try #require(average.standardDeviation), expected.standardDeviation, relative: 1e-6)

        // The one-pass textbook formula, E[x²] − E[x]², is hopeless here; that is what the test guards.
        let n = Double(samples.count)
        let sumX = samples.reduce(0) { $0 + $1.x }, sumXX = samples.reduce(0) { $0 + $1.x * $1.x }
        let naive = ((sumXX - sumX * sumX / n) / (n - 1)).squareRoot()
        #expect(!(abs(naive - expected.standardDeviation.x) < 0.01 * expected.standardDeviation.x))
    }

    @Test("Non-finite samples are refused and leave the average untouched",
          arguments: [Vector3(x: .nan, y: 0, z: 1), Vector3(x: 0, y: .infinity, z: 1), Vector3(x: 0, y: 0, z: -.infinity)])
    func refusesNonFinite(bad: Vector3) {
        var average = GravityAverage([Vector3(x: 0, y: 0, z: 1), Vector3(x: 0, y: 0, z: 1.02)])
        let before = average
        let used = average.add(bad)
        #expect(!used)
        #expect(average == before)
        #expect(average.count == 2)
    }

    @Test("reset forgets everything, and the average starts over cleanly")
    func reset() {
        var average = GravityAverage([Vector3(x: 5, y: 5, z: 5), Vector3(x: 7, y: 7, z: 7)])
        average.reset()
        #expect(average == GravityAverage())
        #expect(average.mean == nil)
        average.add(Vector3(x: 0, y: 0, z: 1))
        #expect(average.mean == Vector3(x: 0, y: 0, z: 1))
    }
}
