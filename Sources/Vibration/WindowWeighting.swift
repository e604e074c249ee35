#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How much each instant of an analysis window counts in a figure of it, and so how a change
/// of level inside a window shows in the figure: the weighting a ``RunningDetector`` inverts to
/// estimate when a change happened.
enum WindowWeighting: Sendable, Hashable {
    /// Every sample alike: the RMS acceleration, computed in time.
    case uniform
    /// The Hann window's energy, sin⁴(πu) across the window: the velocity, computed from a
    /// Hann-windowed spectrum. Its edges count for little, so a change in a window's first or
    /// last tenth barely moves the figure.
    case hann

    /// The share of a window's weight in its last `fraction` of its length (by symmetry, also
    /// in its first): 0 at 0, 1 at 1, ½ at ½.
    func share(ofLast fraction: Double) -> Double {
        let u = min(1, max(0, fraction))
        switch self {
        case .uniform:
            return u
        case .hann:
            // ∫₀ᵘ sin⁴(πt) dt = 3u/8 − sin(2πu)/(4π) + sin(4πu)/(32π), and 3/8 over the whole.
            let integral = 3 * u / 8 - sin(2 * Double.pi * u) / (4 * Double.pi) + sin(4 * Double.pi * u) / (32 * Double.pi)
            return min(1, max(0, integral / (3.0 / 8)))
        }
    }

    /// The fraction of a window whose share is `share` (0…1): the inverse of
    /// ``share(ofLast:)``, by bisection (the share rises monotonically).
    func fraction(forShare share: Double) -> Double {
        let target = min(1, max(0, share))
        if case .uniform = self { return target }
        var low = 0.0, high = 1.0
        for _ in 0..<48 {
            let middle = (low + high) / 2
            if self.share(ofLast: middle) < target { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
