import MQTT
import Testing

/// The inbound probe's decisions, driven by hand: no broker, no threads, no waiting.
@Suite("Inbound liveness: when to probe, when a stall is declared")
struct InboundLivenessTests {
    let start = ContinuousClock.now
    let settings = InboundProbeSettings(topic: "p/probe", silence: .seconds(30), timeout: .seconds(10))

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    func connected() -> InboundLiveness {
        var liveness = InboundLiveness(settings: settings)
        liveness.connected(at: at(0))
        return liveness
    }

    @Test func aProbeGoesOutOnlyAfterTheSilence() {
        var liveness = connected()
        do { let action = liveness.check(at: at(29.9)) { "n" }; #expect(action == nil) }
        do { let action = liveness.check(at: at(30)) { "n" }; #expect(action == .sendProbe(nonce: "n-1")) }
    }

    @Test func anyQoS1DeliveryRestartsTheSilenceSoABusyClientSendsNoProbe() {
        var liveness = connected()
        for second in stride(from: 20.0, through: 200, by: 20) {
            do { let ours = liveness.delivered(probeNonce: nil, at: at(second)); #expect(ours == false, "not ours: the receiver gets it") }
            #expect(liveness.check(at: at(second + 10)) { "n" } == nil)
        }
    }

    @Test func theEchoWithinTheTimeoutKeepsTheConnection() {
        var liveness = connected()
        guard case .sendProbe(let nonce)? = liveness.check(at: at(30), makeNonce: { "a" }) else {
            Issue.record("no probe")
            return
        }
        do { let ours = liveness.delivered(probeNonce: nonce, at: at(30.01)); #expect(ours, "our probe: hidden from the receiver") }
        do { let action = liveness.check(at: at(45)) { "b" }; #expect(action == nil) }
        #expect(liveness.phase == .listening(since: at(30.01)))
    }

    @Test func anEchoOfAnotherTokenDoesNotCount() {
        var liveness = connected()
        _ = liveness.check(at: at(30)) { "a" }
        do { let ours = liveness.delivered(probeNonce: "forged-1", at: at(31)); #expect(ours, "on the probe topic: still hidden") }
        do { let action = liveness.check(at: at(40)) { "b" }; #expect(action == .reconnect(InboundStall(waited: .seconds(10)))) }
    }

    @Test func aStallIsDeclaredAtTheTimeoutAndTheRepairIsCheckedAtOnce() {
        var liveness = connected()
        _ = liveness.check(at: at(30)) { "a" }
        do { let action = liveness.check(at: at(39.9)) { "x" }; #expect(action == nil) }
        do { let action = liveness.check(at: at(40)) { "x" }; #expect(action == .reconnect(InboundStall(waited: .seconds(10)))) }
        do { let action = liveness.check(at: at(40.1)) { "x" }; #expect(action == nil, "offline until the reconnect") }
        liveness.connected(at: at(41))
        do { let action = liveness.check(at: at(41)) { "v" }; #expect(action == .sendProbe(nonce: "v-2"), "no silence to wait for") }
        do { let ours = liveness.delivered(probeNonce: "v-2", at: at(41.05)); #expect(ours) }
        do { let action = liveness.check(at: at(60)) { "w" }; #expect(action == nil, "repaired: the normal silence again") }
        do { let action = liveness.check(at: at(71.05)) { "w" }; #expect(action == .sendProbe(nonce: "w-3")) }
    }

    @Test func aDeliveryWhileTheProbeIsOutRestartsItsDeadline() {
        var liveness = connected()
        _ = liveness.check(at: at(30)) { "a" }
        do { let ours = liveness.delivered(probeNonce: nil, at: at(38)); #expect(!ours) }
        do { let action = liveness.check(at: at(45)) { "x" }; #expect(action == nil, "the path moved at 38 s") }
        do { let action = liveness.check(at: at(48)) { "x" }; #expect(action == .reconnect(InboundStall(waited: .seconds(10)))) }
    }

    @Test func anUnansweredCheckOfTheRepairReconnectsAgainUpToTheRoundLimitThenGivesUpForAnHour() {
        var liveness = connected()
        _ = liveness.check(at: at(30)) { "a" }
        var now = 40.0
        do { let action = liveness.check(at: at(now)) { "x" }; #expect(action == .reconnect(InboundStall(waited: .seconds(10)))) }
        for round in 2...InboundLiveness.maximumRepairRounds {
            liveness.disconnected()
            liveness.connected(at: at(now + 1))
            _ = liveness.check(at: at(now + 1)) { "v" }
            now += 11
            let action = liveness.check(at: at(now)) { "x" }
            #expect(action == .reconnect(InboundStall(waited: .seconds(10), round: round)))
        }
        liveness.connected(at: at(now + 1))
        _ = liveness.check(at: at(now + 1)) { "v" }
        do {
            let action = liveness.check(at: at(now + 11)) { "x" }
            #expect(action == .giveUp(.unanswered(rounds: InboundLiveness.maximumRepairRounds)))
        }
        // Resting: no probe, whatever the connection does, until the hour is up.
        liveness.disconnected()
        liveness.connected(at: at(now + 20))
        do { let action = liveness.check(at: at(now + 3000)) { "r" }; #expect(action == nil) }
        do {
            let action = liveness.check(at: at(now + 11 + 3600)) { "r" }
            #expect(action == .sendProbe(nonce: "r-\(InboundLiveness.maximumRepairRounds + 2)"))
        }
    }

    @Test func aRepairThatTakesTwoRoundsCountsAsOneStall() {
        var liveness = connected()
        _ = liveness.check(at: at(30)) { "a" }
        _ = liveness.check(at: at(40)) { "x" }
        liveness.connected(at: at(41))
        _ = liveness.check(at: at(41)) { "b" }
        do { let action = liveness.check(at: at(51)) { "x" }; #expect(action == .reconnect(InboundStall(waited: .seconds(10), round: 2))) }
        liveness.connected(at: at(52))
        guard case .sendProbe(let nonce)? = liveness.check(at: at(52), makeNonce: { "c" }) else {
            Issue.record("no check of the repair")
            return
        }
        do { let ours = liveness.delivered(probeNonce: nonce, at: at(52.1)); #expect(ours) }
        // Repaired: a later stall starts again at round 1.
        _ = liveness.check(at: at(82.1)) { "d" }
        do { let action = liveness.check(at: at(92.1)) { "x" }; #expect(action == .reconnect(InboundStall(waited: .seconds(10)))) }
    }

    @Test func aProbeTheBrokerRefusesGivesUpAtOnceAndOnlyForTheProbeInFlight() {
        var liveness = connected()
        do { let action = liveness.refused(reasonCode: 0x87, at: at(1)); #expect(action == nil, "no probe in flight") }
        _ = liveness.check(at: at(30)) { "a" }
        do { let action = liveness.refused(reasonCode: 0x87, at: at(30.01)); #expect(action == .giveUp(.refused(reasonCode: 0x87))) }
        do { let action = liveness.check(at: at(100)) { "b" }; #expect(action == nil) }
    }

    @Test func theWorstCaseStaysWithinAMinuteAtTheLargestSilenceAllowed() {
        let longest = InboundProbeSettings(topic: "p", silence: .seconds(50), timeout: .seconds(10))
        #expect(longest.worstDetection == .seconds(60))
        #expect(settings.worstDetection == .seconds(40))
    }

    @Test func aDisconnectDuringAProbeDeclaresNothing() {
        var liveness = connected()
        _ = liveness.check(at: at(30)) { "a" }
        liveness.disconnected()
        do { let action = liveness.check(at: at(100)) { "b" }; #expect(action == nil) }
        liveness.connected(at: at(101))
        do { let action = liveness.check(at: at(120)) { "b" }; #expect(action == nil, "a fresh silence, not a check of a repair") }
    }
}
