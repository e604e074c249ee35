import CFFTW

/// A real-to-complex discrete Fourier transform of one length, through FFTW (double precision),
/// with its own aligned buffers and one plan made for them.
///
/// **Planning.** The plan is made once, here, and executed for every window and axis: FFTW's
/// plans are expensive to make and cheap to run. It is made with `FFTW_ESTIMATE`, which picks
/// an algorithm from heuristics without trial runs: it takes microseconds, leaves the buffers
/// alone, allocates nothing beyond the plan, and always picks the same algorithm, so the figures
/// are the same on every run. `FFTW_MEASURE` would time candidates for a transform that is a
/// few thousand points long and runs a few times a second, where the best plan saves
/// microseconds a second; it would cost milliseconds to seconds at start, scratch memory while
/// planning and run-to-run differences in the last bits.
///
/// **Threads.** FFTW's planner (making and destroying plans) is not thread-safe; executing a
/// plan is. Before planning, ``init(count:)`` calls `fftw_make_planner_thread_safe()` (FFTW ≥
/// 3.3.5, in `libfftw3_threads`), which installs FFTW's own planner mutex around every planner
/// call and `fftw_destroy_plan`; it is idempotent and takes FFTW's internal lock itself, so it
/// is safe to call from any thread, any number of times. Plumb takes no lock of its own around
/// FFTW. Analyzers can therefore be made and released on any thread, concurrently (tests do).
/// One instance, though, is not thread-safe: ``execute()`` writes ``output`` from ``input``,
/// so one owner uses it at a time.
final class RealFFT {
    /// The number of real input points.
    let count: Int
    /// The number of complex outputs: `count / 2 + 1` (DC to Nyquist; the rest are conjugates).
    let bins: Int
    /// The input, `count` doubles, 16-byte aligned by `fftw_alloc_real`.
    let input: UnsafeMutableBufferPointer<Double>
    private let output: UnsafeMutablePointer<fftw_complex>
    private let plan: fftw_plan

    /// Allocates the buffers and plans the transform; nil when FFTW cannot (out of memory, or a
    /// length below 2).
    init?(count: Int) {
        guard count >= 2, count <= Int(Int32.max) else { return nil }
        let bins = count / 2 + 1
        guard let input = fftw_alloc_real(count) else { return nil }
        guard let output = fftw_alloc_complex(bins) else {
            fftw_free(input)
            return nil
        }
        fftw_make_planner_thread_safe()
        guard let plan = fftw_plan_dft_r2c_1d(Int32(count), input, output, UInt32(FFTW_ESTIMATE)) else {
            fftw_free(input)
            fftw_free(output)
            return nil
        }
        self.count = count
        self.bins = bins
        self.input = UnsafeMutableBufferPointer(start: input, count: count)
        self.output = output
        self.plan = plan
        self.input.initialize(repeating: 0)
    }

    deinit {
        fftw_destroy_plan(plan)
        fftw_free(input.baseAddress)
        fftw_free(output)
    }

    /// Transforms ``input`` into the outputs read by ``power(at:)``.
    func execute() {
        fftw_execute(plan)
    }

    /// |X_k|², the squared magnitude of output `k` (0 ≤ k < ``bins``), unnormalized as FFTW
    /// leaves it: a sine of amplitude A on bin k of an unwindowed input gives (A · count / 2)².
    func power(at k: Int) -> Double {
        let value = output[k]
        return value.0 * value.0 + value.1 * value.1
    }
}
