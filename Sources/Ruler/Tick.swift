/// One graduation mark on a ruler.
public struct Tick: Sendable, Hashable {
    /// Where the tick is, in the ruler's unit: `i / subdivisions`, worked out from whole numbers,
    /// so 0.3 is the `Double` nearest 0.3 and never a sum of ten 0.03s.
    public var at: Double
    /// Where the tick is, in pixels from the ruler's start, rounded to 3 decimals.
    public var px: Double
    /// 0 for a whole unit; each higher rank a finer division (see ``GraduationStyle``).
    public var rank: Int
    /// The tick's height as a fraction of a whole unit's tick: 1 for rank 0, less for the others.
    public var height: Double
    /// The whole number of units at a rank-0 tick (`"0"`, `"1"`, …); nil on every other tick.
    public var label: String?

    public init(at: Double, px: Double, rank: Int, height: Double, label: String?) {
        self.at = at
        self.px = px
        self.rank = rank
        self.height = height
        self.label = label
    }
}
