import Geometry

/// The mean of the last `capacity` gravity vectors: the agent's smoothing filter.
///
/// The agent feeds it block means of a tenth of a second, so the average updates ten times a
/// second whatever the window, and a step shows within the window plus a tenth of a second.
public struct MovingAverage: Sendable, Hashable {
    /// How many recent values are averaged (at least 1).
    public private(set) var capacity: Int
    /// The values averaged, in storage order (a ring), not the order they came in.
    private(set) var values: [Vector3] = []
    private var next = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        values.reserveCapacity(self.capacity)
    }

    /// Values currently averaged.
    public var count: Int { values.count }

    /// The mean, or nil before the first value.
    public var mean: Vector3? {
        guard !values.isEmpty else { return nil }
        // Summed afresh: at most a few hundred values, and no rounding accumulates.
        return values.reduce(.zero, +) / Double(values.count)
    }

    /// The standard error of ``mean``, per axis: the sample standard deviation of the values
    /// divided by √count. Nil with fewer than two values, when there is no spread to measure.
    ///
    /// The values are block means, so this treats blocks as independent; the ADXL345's noise is
    /// white at these rates, which makes that fair.
    public var standardError: Vector3? {
        guard values.count >= 2, let mean else { return nil }
        let n = Double(values.count)
        let squares = values.reduce(Vector3.zero) { sum, value in
            let d = value - mean
            return sum + Vector3(x: d.x * d.x, y: d.y * d.y, z: d.z * d.z)
        }
        let variance = squares / (n - 1)
        return Vector3(x: (variance.x / n).squareRoot(), y: (variance.y / n).squareRoot(), z: (variance.z / n).squareRoot())
    }

    /// Adds a value, displacing the oldest when full. Non-finite values are ignored, since one
    /// would spoil the mean for a whole window.
    public mutating func add(_ value: Vector3) {
        guard value.isFinite else { return }
        if values.count < capacity {
            values.append(value)
        } else {
            values[next] = value
        }
        next = (next + 1) % capacity
    }

    /// Changes the window, keeping the newest values that still fit.
    public mutating func resize(capacity newCapacity: Int) {
        let newCapacity = max(1, newCapacity)
        guard newCapacity != capacity else { return }
        let ordered = values.count < capacity ? values : Array(values[next...] + values[..<next])
        values = Array(ordered.suffix(newCapacity))
        capacity = newCapacity
        next = values.count % newCapacity
    }

    /// Forgets every value.
    public mutating func reset() {
        values.removeAll(keepingCapacity: true)
        next = 0
    }
}
