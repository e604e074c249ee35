import Configuration
import MQTT
import PlumbSync
import RulerService

/// Answers ruler-service requests (`P/request/<service>`) on its own task, off ``AgentCore``.
///
/// A flood of requests must not starve sampling or publishing, so the work happens here, not on
/// the agent's actor: the actor is asked only for the current reading, and only by `rise` and
/// `shim`. Admission is cheap and happens on the MQTT event task: a token bucket (the
/// `service.requests_per_s` and `service.burst` settings) and a bounded queue, and whatever
/// they turn away is answered `busy` at once. Every request gets a reply.
///
/// Replies go to the MQTT 5 response topic with the request's correlation data when the request
/// has one, otherwise to `P/response/<service>`; the payload echoes the request's `transaction`.
public final class RequestService: Sendable {
    /// Requests admitted but not answered yet; beyond this a request is answered `busy`.
    public static let queueCapacity = 64

    private let topics: Topics
    private let mqtt: any MQTTClient
    private let log: AgentLog
    private let clock: @Sendable () -> Double
    private let currentReading: @Sendable () async -> CurrentReading?
    private let handler = RulerRequestHandler()
    private let admission: Locked<Admission>
    private let queue: AsyncStream<MQTTMessage>
    private let enqueue: AsyncStream<MQTTMessage>.Continuation

    private struct Admission {
        var bucket: TokenBucket
        var pending = 0
        var stopped = false
    }

    /// - Parameters:
    ///   - requestsPerSecond: the average rate answered before `busy`.
    ///   - burst: how many requests may arrive at once after a quiet spell.
    ///   - clock: monotonic seconds, for the token bucket.
    ///   - currentReading: the filtered reading for `rise` and `shim`; nil when there is none.
    public init(topics: Topics, mqtt: any MQTTClient, requestsPerSecond: Double, burst: Double, log: AgentLog,
                clock: @escaping @Sendable () -> Double,
                currentReading: @escaping @Sendable () async -> CurrentReading?) {
        self.topics = topics
        self.mqtt = mqtt
        self.log = log
        self.clock = clock
        self.currentReading = currentReading
        admission = Locked(Admission(bucket: TokenBucket(ratePerSecond: requestsPerSecond, burst: burst)))
        (queue, enqueue) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .unbounded)
    }

    /// Whether `message` is a request this service answers.
    public func accepts(_ message: MQTTMessage) -> Bool {
        topics.requestService(of: message.topic) != nil
    }

    /// Admits a request or answers it `busy`. Called on the MQTT event task; never blocks.
    public func submit(_ message: MQTTMessage) {
        guard let service = topics.requestService(of: message.topic) else { return }
        // A retained request was answered when it was published; replaying it after every
        // reconnect would send stale answers to whoever listens now.
        guard !message.retain else {
            log.warning("ignored a retained \(service) request; publish requests without the retain flag.")
            return
        }
        let now = clock()
        let admitted = admission.withLock { (state) -> Bool? in
            guard !state.stopped else { return nil }
            guard state.pending < Self.queueCapacity, state.bucket.take(at: now) else { return false }
            state.pending += 1
            return true
        }
        guard let admitted else { return }
        guard admitted else {
            let transaction = RulerRequestHandler.transaction(in: message.payload)
            reply(.failure(.busy, "too many requests; the limit is set by service.requests_per_s. Retry in a moment.",
                           transaction: transaction), to: message, service: service)
            return
        }
        enqueue.yield(message)
    }

    /// Answers admitted requests until ``finish()``.
    public func run() async {
        for await message in queue {
            guard !admission.withLock({ $0.stopped }) else { continue }
            guard let service = topics.requestService(of: message.topic) else { continue }
            let needsReading = service == "rise" || service == "shim"
            let reading = needsReading ? await currentReading() : nil
            let answer = handler.reply(service: service, payload: message.payload, reading: reading)
            reply(answer, to: message, service: service)
            admission.withLock { $0.pending -= 1 }
        }
    }

    /// Stops answering: ``run()`` returns without replying to what is still queued, so that no
    /// reply follows the agent's `offline`. Await ``run()`` before publishing `offline`.
    public func finish() {
        admission.withLock { $0.stopped = true }
        enqueue.finish()
    }

    private func reply(_ answer: ServiceReply, to request: MQTTMessage, service: String) {
        var properties = MQTTPublishProperties()
        let topic: String
        if let responseTopic = request.responseTopic {
            topic = responseTopic
            properties.correlationData = request.correlationData
        } else {
            topic = topics.response(service)
        }
        do {
            try mqtt.publish(topic, payload: answer.bytes, qos: request.qos, retain: false, properties: properties)
        } catch where error.code == .invalidTopic && topic != topics.response(service) {
            // A response topic with a wildcard can't be published to; say so where the
            // requester can still hear it rather than leave it waiting.
            let problem = ServiceReply.failure(.badRequest, "the MQTT 5 response topic '\(topic)' cannot be published to"
                + " (wildcards or an empty level); give a plain topic.", transaction: answer.transaction)
            try? mqtt.publish(topics.response(service), payload: problem.bytes, qos: request.qos, retain: false,
                              properties: MQTTPublishProperties(correlationData: request.correlationData))
        } catch {
            log.debug("reply to \(service) request on \(topic) failed: \(error)")
        }
    }
}
