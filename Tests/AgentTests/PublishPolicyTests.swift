import Agent
import Geometry
import Testing

private func deg(_ degrees: Double) -> Angle { Angle(degrees: degrees) }

private func attitude(roll: Double, pitch: Double) -> Attitude {
    Attitude(gravity: Attitude.gravity(roll: deg(roll), pitch: deg(pitch)))
}

private let still = attitude(roll: 0.3, pitch: -0.2)

/// Deadband 0.05°, at most one movement publication a second, a heartbeat every 60 s.
private func policy() -> PublishPolicy {
    PublishPolicy(deadband: deg(0.05), minInterval: 1, heartbeat: 60)
}

/// A policy that has published `still` at time 0.
private func publishedPolicy() -> PublishPolicy {
    var policy = policy()
    _ = policy.decide(attitude: still, flipped: false, at: 0)
    return policy
}

/// Asks at every `step` seconds from `start` up to and including `end` and returns the
/// publications as (time, reason).
private func run(_ policy: inout PublishPolicy, from start: Double, to end: Double, step: Double,
                 attitude: (Double) -> Attitude, flipped: (Double) -> Bool = { _ in false })
    -> [(time: Double, reason: PublishDecision)] {
    var published: [(time: Double, reason: PublishDecision)] = []
    var index = 0.0
    while true {
        let time = start + index * step
        guard time <= end else { return published }
        if let reason = policy.decide(attitude: attitude(time), flipped: flipped(time), at: time) {
            published.append((time, reason))
        }
        index += 1
    }
}

@Suite("PublishPolicy: first publication and quiet")
struct PublishPolicyQuietTests {
    @Test("The first decision publishes, whatever else is true")
    func first() {
        var policy = policy()
        #expect(policy.lastPublished == nil)
        #expect(policy.lastPublishTime == -.infinity)
        policy.force()
        #expect(policy.decide(attitude: still, flipped: true, at: 5) == .first)
        #expect(policy.lastPublished == still)
        #expect(policy.lastPublishTime == 5)
        #expect(!policy.isForced)
    }

    @Test("A still machine publishes only heartbeats: one every heartbeat interval for ten minutes")
    func stillIsQuiet() {
        var policy = publishedPolicy()
        let published = run(&policy, from: 0.125, to: 600, step: 0.125, attitude: { _ in still })
        #expect(published.map(\.reason) == Array(repeating: .heartbeat, count: 10))
        #expect(published.map(\.time) == [60, 120, 180, 240, 300, 360, 420, 480, 540, 600])
    }

    @Test("Noise inside the deadband is still quiet")
    func noiseIsQuiet() {
        var policy = publishedPolicy()
        var random = SplitMix64(seed: 42)
        let published = run(&policy, from: 0.125, to: 600, step: 0.125, attitude: { _ in
            attitude(roll: 0.3 + .random(in: -0.02...0.02, using: &random),
                     pitch: -0.2 + .random(in: -0.02...0.02, using: &random))
        })
        #expect(published.allSatisfy { $0.reason == .heartbeat })
        #expect(published.count == 10)
    }

    @Test("A nil answer records nothing; a non-nil one records the attitude and time as published")
    func decideRecords() {
        var policy = publishedPolicy()
        let moved = attitude(roll: 1, pitch: 0)
        #expect(policy.decide(attitude: moved, flipped: false, at: 0.5) == nil)
        #expect(policy.lastPublished == still)
        #expect(policy.lastPublishTime == 0)
        #expect(policy.decide(attitude: moved, flipped: false, at: 1) == .moved)
        #expect(policy.lastPublished == moved)
        #expect(policy.lastPublishTime == 1)
        #expect(policy.decide(attitude: moved, flipped: false, at: 2) == nil)
    }
}

@Suite("PublishPolicy: movement")
struct PublishPolicyMovementTests {
    // Three moves that each change exactly one of roll, pitch and tilt by more than they change
    // the other two: turning about the vertical keeps the tilt, and a diagonal moves the tilt √2
    // times as far as either roll or pitch.
    static let moves: [(name: String, from: Attitude, to: Attitude)] = [
        ("roll", attitude(roll: 0.03, pitch: 0), attitude(roll: -0.03, pitch: 0)),
        ("pitch", attitude(roll: 0, pitch: 0.03), attitude(roll: 0, pitch: -0.03)),
        ("tilt", attitude(roll: 0, pitch: 0), attitude(roll: 0.04, pitch: 0.04)),
    ]

    @Test("Each of roll, pitch and tilt alone publishes once it moves more than the deadband", arguments: 0..<3)
    func eachAngle(index: Int) {
        let (name, from, to) = Self.moves[index]
        let roll = (to.roll - from.roll).magnitude, pitch = (to.pitch - from.pitch).magnitude
        let tilt = (to.tilt - from.tilt).magnitude
        let changes = ["roll": roll, "pitch": pitch, "tilt": tilt]
        let moved = changes[name]!
        let largestOther = changes.filter { $0.key != name }.map(\.value).max()!
        #expect(moved > largestOther, "the \(name) move must move \(name) the most")

        // A deadband between the others and the moved angle: only this angle can trigger.
        let deadband = Angle(radians: (moved.radians + largestOther.radians) / 2)
        var policy = PublishPolicy(deadband: deadband, minInterval: 1, heartbeat: 60)
        _ = policy.decide(attitude: from, flipped: false, at: 0)
        #expect(policy.decide(attitude: to, flipped: false, at: 1) == .moved, "\(name)")

        // Exactly the change is not more than the deadband; just under it, it is.
        var exact = PublishPolicy(deadband: moved, minInterval: 1, heartbeat: 60)
        _ = exact.decide(attitude: from, flipped: false, at: 0)
        #expect(exact.decide(attitude: to, flipped: false, at: 1) == nil, "\(name)")
        exact.deadband = Angle(radians: moved.radians.nextDown)
        #expect(exact.decide(attitude: to, flipped: false, at: 1) == .moved, "\(name)")
    }

    @Test("Roll compares the short way round: an upside-down wobble across ±180° has not moved")
    func rollWraps() {
        var policy = policy()
        _ = policy.decide(attitude: attitude(roll: 179.99, pitch: 0), flipped: false, at: 0)
        #expect(policy.decide(attitude: attitude(roll: -179.99, pitch: 0), flipped: false, at: 1) == nil)
        #expect(policy.hasMoved(from: attitude(roll: 179.99, pitch: 0), to: attitude(roll: -179.9, pitch: 0)))
    }

    @Test("A slow drift publishes once it adds up to more than the deadband from the last publication")
    func slowDrift() {
        var policy = publishedPolicy()
        // 0.012° a second in roll, decided every second: each step is a quarter of the deadband,
        // and four steps (0.048°) are not yet more than it.
        let published = run(&policy, from: 1, to: 20, step: 1, attitude: { time in
            attitude(roll: 0.3 + 0.012 * time, pitch: -0.2)
        })
        #expect(published.map(\.reason) == [.moved, .moved, .moved, .moved])
        #expect(published.map(\.time) == [5, 10, 15, 20])
    }

    @Test("A movement inside the minimum interval waits, then publishes at the first decision after it")
    func deferredMovement() {
        var policy = publishedPolicy()
        let moved = attitude(roll: 1, pitch: 0)
        let published = run(&policy, from: 0.125, to: 3, step: 0.125, attitude: { time in time < 0.3 ? still : moved })
        #expect(published.count == 1)
        #expect(published.first?.reason == .moved)
        #expect(published.first?.time == 1)
    }

    @Test("A movement that returns inside the minimum interval is not published")
    func returnedMovement() {
        var policy = publishedPolicy()
        let published = run(&policy, from: 0.125, to: 3, step: 0.125, attitude: { time in
            time < 0.5 ? attitude(roll: 1, pitch: 0) : still
        })
        #expect(published.isEmpty)
    }

    @Test("Continuous movement publishes no more often than the minimum interval")
    func rateLimited() {
        var policy = publishedPolicy()
        let published = run(&policy, from: 0.125, to: 10, step: 0.125, attitude: { time in
            attitude(roll: 0.3 + time, pitch: -0.2)
        })
        #expect(published.count == 10)
        for (previous, next) in zip([(time: 0.0, reason: PublishDecision.first)] + published, published) {
            #expect(next.time - previous.time >= 1)
        }
    }

    @Test("NaN angles never count as moved, but heartbeats go on")
    func nanAttitude() {
        var policy = publishedPolicy()
        let nan = Attitude(gravity: Vector3(x: .nan, y: .nan, z: .nan))
        #expect(policy.decide(attitude: nan, flipped: false, at: 30) == nil)
        #expect(policy.decide(attitude: nan, flipped: false, at: 60) == .heartbeat)
    }
}

@Suite("PublishPolicy: flips, heartbeat, force")
struct PublishPolicyTriggerTests {
    @Test("A flip publishes at once, inside the minimum interval and without movement")
    func flipImmediate() {
        var policy = publishedPolicy()
        #expect(policy.decide(attitude: still, flipped: true, at: 0.1) == .flipped)
        #expect(policy.decide(attitude: still, flipped: true, at: 0.2) == .flipped)
        #expect(policy.lastPublishTime == 0.2)
    }

    @Test("The heartbeat comes a full interval after the last publication of any kind")
    func heartbeatRestarts() {
        var policy = publishedPolicy()
        #expect(policy.decide(attitude: still, flipped: true, at: 50) == .flipped)
        #expect(policy.decide(attitude: still, flipped: false, at: 60) == nil)
        #expect(policy.decide(attitude: still, flipped: false, at: 110) == .heartbeat)
        policy.recordHeartbeat(at: 150)
        #expect(policy.decide(attitude: still, flipped: false, at: 170) == nil)
        #expect(policy.decide(attitude: still, flipped: false, at: 210) == .heartbeat)
    }

    @Test("Forcing publishes at the next decision, inside the minimum interval, once")
    func force() {
        var policy = publishedPolicy()
        policy.force()
        #expect(policy.isForced)
        #expect(policy.decide(attitude: still, flipped: false, at: 0.1) == .forced)
        #expect(!policy.isForced)
        #expect(policy.decide(attitude: still, flipped: false, at: 0.2) == nil)
    }

    @Test("A publication recorded outside decide satisfies a force and restarts the deadband from it")
    func recordPublished() {
        var policy = publishedPolicy()
        policy.force()
        let moved = attitude(roll: 2, pitch: 0)
        policy.recordPublished(attitude: moved, at: 5)
        #expect(!policy.isForced)
        #expect(policy.lastPublished == moved)
        #expect(policy.lastPublishTime == 5)
        #expect(policy.decide(attitude: moved, flipped: false, at: 10) == nil)
        #expect(policy.decide(attitude: still, flipped: false, at: 10) == .moved)
    }

    @Test("A publication without angles restarts the heartbeat but keeps a force and the last angles")
    func recordHeartbeat() {
        var policy = publishedPolicy()
        policy.force()
        policy.recordHeartbeat(at: 30)
        #expect(policy.lastPublishTime == 30)
        #expect(policy.lastPublished == still)
        #expect(policy.isForced)
        #expect(policy.decide(attitude: still, flipped: false, at: 30.1) == .forced)
    }

    @Test("Reasons rank first, flipped, forced, moved, heartbeat")
    func ranking() {
        var policy = publishedPolicy()
        let moved = attitude(roll: 5, pitch: 0)
        policy.force()
        #expect(policy.decide(attitude: moved, flipped: true, at: 100) == .flipped)
        policy.force()
        #expect(policy.decide(attitude: still, flipped: false, at: 200) == .forced)
        #expect(policy.decide(attitude: moved, flipped: false, at: 300) == .moved)
        #expect(policy.decide(attitude: moved, flipped: false, at: 400) == .heartbeat)
    }

    @Test("A non-finite time decides nothing", arguments: [Double.nan, .infinity])
    func nonFiniteTime(time: Double) {
        var policy = publishedPolicy()
        policy.force()
        #expect(policy.decide(attitude: still, flipped: true, at: time) == nil)
        #expect(policy.lastPublishTime == 0)
    }

    @Test("Settings changed live apply at once and keep the history")
    func liveSettings() {
        var policy = publishedPolicy()
        let nudged = attitude(roll: 0.33, pitch: -0.2)
        #expect(policy.decide(attitude: nudged, flipped: false, at: 2) == nil)
        policy.deadband = deg(0.01)
        #expect(policy.decide(attitude: nudged, flipped: false, at: 2) == .moved)
        policy.heartbeat = 5
        #expect(policy.decide(attitude: nudged, flipped: false, at: 6.9) == nil)
        #expect(policy.decide(attitude: nudged, flipped: false, at: 7) == .heartbeat)
        #expect(PublishDecision.heartbeat.rawValue == "heartbeat")
    }
}
