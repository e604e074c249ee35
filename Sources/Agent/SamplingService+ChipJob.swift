import Accelerometers
import Dispatch
import PlumbSync

/// Why a job on the chip (``SamplingService/runOnChip(timeout:_:)``) did not give a result.
/// The ``description`` says what to do.
public enum ChipJobError: Error, Sendable, CustomStringConvertible {
    /// Another job is waiting or running.
    case busy
    /// The chip is not being sampled: starting, stopping, or in a fault's backoff.
    case notSampling
    /// No result within the time allowed, in seconds.
    case timedOut(seconds: Double)
    /// The chip failed during the job.
    case sensor(SensorError)

    public var description: String {
        switch self {
        case .busy:
            "another job is running on the sensor; wait for its result and try again."
        case .notSampling:
            "the sensor is not being sampled (starting, or faulty); try again once it reads."
        case .timedOut(let seconds):
            "the sensor gave no result within \(seconds) s; sampling resumes on its own. Check the sensor_fault"
                + " events and try again."
        case .sensor(let error):
            "\(error)"
        }
    }
}

/// A job waiting for the sampling thread. Its outcome reaches the caller exactly once: from the
/// job, from the timeout, or from the thread ending, whichever comes first.
struct ChipJob: Sendable {
    let id: Int
    let run: @Sendable (any Accelerometer) -> Void
    let refuse: @Sendable (ChipJobError) -> Void
}

extension SamplingService.Control {
    /// The waiting job, now marked running; nil when there is none.
    mutating func takeJob() -> ChipJob? {
        guard let job else { return nil }
        self.job = nil
        jobRunning = true
        return job
    }
}

extension SamplingService {
    /// Runs `work` on the chip on the sampling thread, between two blocks: sampling pauses, the
    /// job runs, the chip is started again with the running settings and sampling resumes, which
    /// the stream reports as ``SamplingUpdate/resumed(_:)``.
    ///
    /// The sampling thread owns the chip, so this is the only way anything else reaches it while
    /// the agent runs. One job at a time. Bounded: after `timeout` seconds the caller gets
    /// ``ChipJobError/timedOut(seconds:)`` whether or not the job began (a job that already runs
    /// still finishes on the thread, whose bus calls cannot be interrupted; its late result is
    /// dropped). Never holds the service's lock while the job runs.
    public func runOnChip<Value: Sendable>(
        timeout: Double, _ work: @escaping @Sendable (any Accelerometer) throws(SensorError) -> Value
    ) async -> Result<Value, ChipJobError> {
        let waiter = Locked<CheckedContinuation<Result<Value, ChipJobError>, Never>?>(nil)
        @Sendable func finish(_ result: Result<Value, ChipJobError>) {
            waiter.withLock { (pending) -> CheckedContinuation<Result<Value, ChipJobError>, Never>? in
                defer { pending = nil }
                return pending
            }?.resume(returning: result)
        }
        return await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            let queued = control.withLock { (control) -> Result<Int, ChipJobError> in
                guard control.sampling, !control.stopped, !control.finished else { return .failure(.notSampling) }
                guard control.job == nil, !control.jobRunning else { return .failure(.busy) }
                control.nextWaiterID += 1
                let id = control.nextWaiterID
                control.job = ChipJob(id: id, run: { chip in
                    do throws(SensorError) {
                        finish(.success(try work(chip)))
                    } catch {
                        finish(.failure(.sensor(error)))
                    }
                }, refuse: { finish(.failure($0)) })
                return .success(id)
            }
            guard case .success(let id) = queued else {
                if case .failure(let refusal) = queued { finish(.failure(refusal)) }
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [control] in
                // Still waiting: it never began, so it never will.
                control.withLock { (control) -> Void in
                    if control.job?.id == id { control.job = nil }
                }
                finish(.failure(.timedOut(seconds: timeout)))
            }
        }
    }
}
