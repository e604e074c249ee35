import Testing
import Vibration

@Suite("When P/vibration is published")
struct VibrationPublishPolicyTests {
    @Test("A steady machine publishes first, then only heartbeats")
    func steadyIsQuiet() {
        var policy = VibrationPublishPolicy(interval: 10, heartbeat: 30)
        var decisions: [VibrationPublishDecision] = []
        for second in 0..<120 {
            let wobble = second % 2 == 0 ? 0.05 : -0.05  // ±1 % of 4.5 mm/s, inside the deadband
            if let decision = policy.decide(velocity: 4.5 + wobble, acceleration: 0.14, changed: false,
                                            at: Double(second)) {
                decisions.append(decision)
            }
        }
        #expect(decisions == [.first, .heartbeat, .heartbeat, .heartbeat])
    }

    @Test("A change publishes at once; movement waits for the interval; force publishes next")
    func changesAndMovement() {
        var policy = VibrationPublishPolicy(interval: 10, heartbeat: 30)
        #expect(policy.decide(velocity: 1, acceleration: 0.01, changed: false, at: 0) == .first)
        #expect(policy.decide(velocity: 3, acceleration: 0.03, changed: false, at: 1) == nil, "inside the interval")
        #expect(policy.decide(velocity: 3, acceleration: 0.03, changed: true, at: 2) == .changed)
        #expect(policy.decide(velocity: 6, acceleration: 0.06, changed: false, at: 11) == nil, "interval from the change")
        #expect(policy.decide(velocity: 6, acceleration: 0.06, changed: false, at: 12) == .moved)
        policy.force()
        #expect(policy.decide(velocity: 6, acceleration: 0.06, changed: false, at: 13) == .forced)
        #expect(policy.decide(velocity: 6, acceleration: 0.06, changed: false, at: .nan) == nil)
    }

    @Test("A stopped machine's noise does not count as movement, however large relative to itself")
    func noiseFloor() {
        var policy = VibrationPublishPolicy(interval: 1, heartbeat: 1000)
        #expect(policy.decide(velocity: 0.04, acceleration: 0.0005, changed: false, at: 0) == .first)
        #expect(policy.decide(velocity: 0.09, acceleration: 0.0012, changed: false, at: 5) == nil)
        #expect(policy.decide(velocity: 0.2, acceleration: 0.0012, changed: false, at: 6) == .moved)
    }
}
