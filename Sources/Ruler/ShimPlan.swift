import Geometry

/// How many feet a machine stands on.
public enum FootLayout: Int, Sendable, CaseIterable {
    /// One foot at the front centre, two at the rear corners.
    case three = 3
    /// One foot at each corner.
    case four = 4

    /// Each foot's name and position as a fraction of the half-length (x) and half-width (y):
    /// x to the front, y to the left. The order is the order a plan lists the feet in.
    var feet: [(name: String, x: Double, y: Double)] {
        switch self {
        case .three:
            [("front", 1, 0), ("rear_left", -1, 1), ("rear_right", -1, -1)]
        case .four:
            [("front_left", 1, 1), ("front_right", 1, -1), ("rear_left", -1, 1), ("rear_right", -1, -1)]
        }
    }
}

/// How much to raise one foot.
public struct FootShim: Sendable, Hashable {
    /// `front_left`, `front_right`, `rear_left`, `rear_right`, or `front` with three feet.
    public var foot: String
    /// The foot's position to the front of the level (negative behind it).
    public var x: Length
    /// The foot's position to the left of the level (negative to its right).
    public var y: Length
    /// How much to raise the foot; 0 for the highest one, never negative.
    public var shim: Length
    /// Expanded uncertainty (k = 2) of ``shim`` from the reading's noise.
    public var uncertainty: Length

    public init(foot: String, x: Length, y: Length, shim: Length, uncertainty: Length) {
        self.foot = foot
        self.x = x
        self.y = y
        self.shim = shim
        self.uncertainty = uncertainty
    }
}

/// The shims that bring every foot up to the highest one, levelling the machine.
public struct ShimPlan: Sendable, Hashable {
    /// One entry a foot, in the order of ``FootLayout``: front_left, front_right, rear_left,
    /// rear_right; or front, rear_left, rear_right.
    public var feet: [FootShim]
    /// The foot that stays as it is (the first in order when several are equally high).
    public var highestFoot: String
    /// The thickest shim.
    public var largestShim: Length

    public init(feet: [FootShim], highestFoot: String, largestShim: Length) {
        self.feet = feet
        self.highestFoot = highestFoot
        self.largestShim = largestShim
    }
}

extension SurfaceTilt {
    /// The shims that level a machine standing on `feet`, its footprint `length` along x and
    /// `width` along y, with the level at its centre.
    ///
    /// Each foot's height is `x·gx/gz + y·gy/gz`; the highest foot gets no shim and every other
    /// one the difference, so the shimmed feet lie in a horizontal plane. Positions, shims and
    /// uncertainties are in `unit`; the magnitudes of `length` and `width` are used.
    public func shims(length: Length, width: Length, feet: FootLayout, in unit: LengthUnit) -> ShimPlan {
        let halfLength = abs(length.converted(to: unit).value) / 2
        let halfWidth = abs(width.converted(to: unit).value) / 2
        let g = levelGravity
        let positions = feet.feet.map { (name: $0.name, x: $0.x * halfLength, y: $0.y * halfWidth) }
        let heights = positions.map { $0.x * (g.x / g.z) + $0.y * (g.y / g.z) }
        // The first of equally high feet stays, so a level machine keeps its first foot.
        var highest = 0
        for index in heights.indices where heights[index] > heights[highest] { highest = index }
        let top = positions[highest]
        let shims = positions.indices.map { index in
            let position = positions[index]
            let shim = index == highest ? 0 : heights[highest] - heights[index]
            let error = SlopePropagation.standardError(ofHeightAcross: top.x - position.x, top.y - position.y,
                                                       gravity: g, noise: standardError)
            return FootShim(foot: position.name, x: Length(position.x, unit), y: Length(position.y, unit),
                            shim: Length(shim, unit), uncertainty: Length(2 * error, unit))
        }
        let largest = shims.map(\.shim.value).max() ?? 0
        return ShimPlan(feet: shims, highestFoot: top.name, largestShim: Length(largest, unit))
    }
}
