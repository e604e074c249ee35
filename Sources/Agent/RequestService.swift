import Contract
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
/// A request stamped `sent_at` longer ago than `service.request_timeout_s` (it waited at the
/// broker) is answered `stale` rather than late.
public final class RequestService: Sendable {
    /// Requests admitted but not answered yet; beyond this a request is answered `busy`.
    public static let queueCapacity = 64
    /// Reply bytes a token pays for: a reply costs one more token per this many bytes.
    public static let bytesPerToken = 64 * 1024

    private let topics: Topics
    /// `<base_topic>/` and `<discovery prefix>/`: where replies may not go.
    private let reservedPrefixes: [String]
    private let mqtt: any MQTTClient
    private let log: AgentLog
    private let clock: @Sendable () -> Double
    private let wallClock: @Sendable () -> Double
    private let currentReading: @Sendable () async -> CurrentReading?
    private let handler: RulerRequestHandler
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
    ///   - requestTimeout: seconds after its `sent_at` when a request is answered `stale`.
    ///   - clock: monotonic seconds, for the token bucket.
    ///   - wallClock: Unix seconds, which a request's `sent_at` is compared with.
    ///   - currentReading: the filtered reading for `rise` and `shim`; nil when there is none.
    ///   - reservedPrefixes: topic prefixes replies may not be sent under (but for
    ///     `P/response/…`): the base topic's and the discovery prefix's, each ending in `/`.
    public init(topics: Topics, reservedPrefixes: [String], mqtt: any MQTTClient, requestsPerSecond: Double,
                burst: Double, requestTimeout: Double = 30, log: AgentLog,
                clock: @escaping @Sendable () -> Double,
                wallClock: @escaping @Sendable () -> Double,
                currentReading: @escaping @Sendable () async -> CurrentReading?) {
        self.topics = topics
        self.reservedPrefixes = reservedPrefixes
        self.mqtt = mqtt
        self.log = log
        self.clock = clock
        self.wallClock = wallClock
        handler = RulerRequestHandler(requestTimeout: requestTimeout)
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
        if message.payloadLength > message.payload.count {
            // Cut at receipt: refused at once, as the handler would, with the length as sent.
            let tooLarge = ServiceReply.failure(.tooLarge, "the request is \(message.payloadLength) bytes; the limit is"
                + " \(RulerRequestHandler.maximumPayloadBytes) (16 KiB): send a smaller request.", transaction: nil)
            admission.withLock { state in
                guard !state.stopped else { return }
                reply(tooLarge, to: message, service: service)
            }
            return
        }
        let now = clock()
        let admitted = admission.withLock { (state) -> Bool in
            guard !state.stopped, state.pending < Self.queueCapacity, state.bucket.take(at: now) else { return false }
            state.pending += 1
            return true
        }
        guard !admitted else {
            enqueue.yield(message)
            return
        }
        let busy = ServiceReply.failure(.busy, "too many requests; the limit is set by service.requests_per_s."
            + " Retry in a moment.", transaction: RulerRequestHandler.transaction(in: message.payload))
        // Checked and published under the lock that finish() takes: no reply after `offline`.
        admission.withLock { state in
            guard !state.stopped else { return }
            reply(busy, to: message, service: service)
        }
    }

    /// Answers admitted requests until ``finish()``.
    public func run() async {
        for await message in queue {
            guard !admission.withLock({ $0.stopped }) else { continue }
            guard let service = topics.requestService(of: message.topic) else { continue }
            let needsReading = RulerServiceName(rawValue: service)?.needsReading ?? false
            let reading = needsReading ? await currentReading() : nil
            // Scoped so that the reply's tree and bytes are freed before the trim below.
            let replyBytes = {
                let answer = handler.reply(service: service, payload: message.payload, reading: reading, now: wallClock())
                let bytes = answer.bytes
                reply(answer, bytes: bytes, to: message, service: service)
                return bytes.count
            }()
            if replyBytes >= HeapTuning.largeReplyBytes { HeapTuning.trim() }
            // A large reply costs a token per 64 KiB beyond the first: a flood of 20,000-tick
            // rulers (1.2 MB each) is held to a few a second, not 200.
            let extra = Double(replyBytes / Self.bytesPerToken)
            let now = clock()
            admission.withLock { state in
                state.pending -= 1
                if extra > 0 { state.bucket.charge(extra, at: now) }
            }
            // A large ruler takes milliseconds to encode; let the agent's other work in between.
            await Task.yield()
        }
    }

    /// Stops answering: ``run()`` returns without replying to what is still queued, so that no
    /// reply follows the agent's `offline`. Await ``run()`` before publishing `offline`.
    public func finish() {
        admission.withLock { $0.stopped = true }
        enqueue.finish()
    }

    private func reply(_ answer: ServiceReply, bytes: [UInt8]? = nil, to request: MQTTMessage, service: String) {
        let fallback = topics.response(service)
        var topic = request.responseTopic ?? fallback
        var answer = answer
        var payload = bytes ?? answer.bytes
        if topic != fallback, let problem = responseTopicProblem(topic) {
            answer = .failure(.badRequest, problem, transaction: answer.transaction)
            payload = answer.bytes
            topic = fallback
        }
        // The correlation data goes back wherever the reply goes: it is how an MQTT 5 client matches it.
        let properties = MQTTPublishProperties(correlationData: request.correlationData)
        do {
            try mqtt.publish(topic, payload: payload, qos: request.qos, retain: false, properties: properties)
        } catch where error.code == .invalidTopic && topic != fallback {
            let problem = ServiceReply.failure(.badRequest, "the MQTT 5 response topic '\(topic)' cannot be published to"
                + " (empty, or with + or #); give a plain topic.", transaction: answer.transaction)
            try? mqtt.publish(fallback, payload: problem.bytes, qos: request.qos, retain: false, properties: properties)
        } catch where error.code == .payloadTooLarge {
            // Larger than the broker takes (a 20,000-tick ruler is over a megabyte): say so
            // rather than leave the requester waiting.
            let problem = ServiceReply.failure(.tooLarge, "the reply is \(payload.count) bytes, more than the broker"
                + " accepts; ask for fewer ticks (a shorter ruler, a larger unit or a coarser style).",
                transaction: answer.transaction)
            try? mqtt.publish(topic, payload: problem.bytes, qos: request.qos, retain: false, properties: properties)
        } catch {
            log.debug("reply to \(service) request on \(topic) failed: \(error)")
        }
    }

    /// Why the agent won't publish to `topic` for a requester, or nil. Replies may not land on
    /// another device's or this one's own topics (a command, a desired config) or on Home
    /// Assistant's discovery: a client allowed only to send requests must not be able to make
    /// the agent publish there with its credentials.
    private func responseTopicProblem(_ topic: String) -> String? {
        guard !topic.hasPrefix(topics.prefix + "/response/") else { return nil }
        guard let reserved = reservedPrefixes.first(where: { topic.hasPrefix($0) }) else { return nil }
        return "the MQTT 5 response topic '\(topic)' is under \(reserved), where Plumb's own topics live; give a"
            + " topic of your own, or leave it out to get the reply on \(topics.prefix)/response/<service>."
    }
}
