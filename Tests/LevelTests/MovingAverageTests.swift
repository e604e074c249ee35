import Geometry
import Level
import Testing

@Suite("Moving average")
struct MovingAverageTests {
    private func v(_ x: Double) -> Vector3 { Vector3(x: x, y: -x, z: 1) }

    @Test func averagesTheLastValuesOnly() {
        var average = MovingAverage(capacity: 3)
        #expect(average.mean == nil)
        for x in [1.0, 2, 3, 4, 5] { average.add(v(x)) }
        #expect(average.count == 3)
        #expect(average.mean == v(4))
    }

    @Test func ignoresNonFiniteValues() {
        var average = MovingAverage(capacity: 2)
        average.add(v(2))
        average.add(Vector3(x: .nan, y: 0, z: 1))
        #expect(average.mean == v(2))
    }

    @Test func resizingKeepsTheNewestValues() {
        var average = MovingAverage(capacity: 4)
        for x in [1.0, 2, 3, 4, 5, 6] { average.add(v(x)) }  // holds 3, 4, 5, 6 with wraparound
        average.resize(capacity: 2)
        #expect(average.mean == v(5.5))
        average.add(v(7))
        #expect(average.mean == v(6.5))
        average.resize(capacity: 5)
        average.add(v(8))
        #expect(average.count == 3)
        #expect(average.mean == v(7))
    }

    @Test func capacityIsAtLeastOne() {
        var average = MovingAverage(capacity: 0)
        average.add(v(1))
        average.add(v(9))
        #expect(average.mean == v(9))
    }
}
