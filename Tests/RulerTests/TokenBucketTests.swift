import RulerService
import Testing

/// Whether `bucket` admits a request at each of `times`, in order.
private func admissions(_ bucket: inout TokenBucket, at times: [Double]) -> [Bool] {
    times.map { bucket.take(at: $0) }
}

@Suite("Token bucket")
struct TokenBucketTests {
    @Test("A full bucket admits a burst, then the rate; a long pause refills only up to the burst")
    func burstThenRate() {
        // Binary fractions of a second, so the refill arithmetic is exact.
        var bucket = TokenBucket(ratePerSecond: 4, burst: 5)
        #expect(admissions(&bucket, at: [100, 100, 100, 100, 100, 100, 100.125, 100.25, 100.25])
            == [true, true, true, true, true, false, false, true, false])
        #expect(admissions(&bucket, at: [1000, 1000, 1000, 1000, 1000, 1000]) == [true, true, true, true, true, false])
    }

    @Test("A costly request puts the bucket in debt, which later requests wait out; the debt is capped")
    func chargeGoesIntoDebt() {
        var bucket = TokenBucket(ratePerSecond: 4, burst: 4)
        #expect(admissions(&bucket, at: [0]) == [true])
        bucket.charge(7, at: 0)  // 4 − 1 − 7 = −4 tokens: one second of refill to reach 0
        #expect(admissions(&bucket, at: [0.5, 1.0, 1.25]) == [false, false, true])
        bucket.charge(.nan, at: 1.25)
        bucket.charge(-3, at: 1.25)
        #expect(admissions(&bucket, at: [1.5]) == [true])
        // However costly, at most ten seconds of refill (40 tokens) are owed.
        bucket.charge(1_000_000, at: 2)
        #expect(admissions(&bucket, at: [11.75, 12.25]) == [false, true])
    }

    @Test("Time going backwards adds nothing")
    func clockStepBack() {
        var bucket = TokenBucket(ratePerSecond: 1, burst: 1)
        #expect(admissions(&bucket, at: [50, 10, 50.5, 51]) == [true, false, false, true])
    }

    @Test("Over a long run the admitted rate is the configured one")
    func sustainedRate() {
        var bucket = TokenBucket(ratePerSecond: 20, burst: 40)
        let admitted = admissions(&bucket, at: (0..<100_000).map { Double($0) * 0.0001 }).filter { $0 }.count
        // 10 s at 20/s, plus the initial burst (the last refill lands just short of 10 s).
        #expect((239...240).contains(admitted))
    }

    @Test("A burst below 1 or NaN still admits one; a NaN or negative rate never refills")
    func degenerateSettings() {
        var tiny = TokenBucket(ratePerSecond: 1, burst: 0.2)
        #expect(tiny.burst == 1)
        #expect(admissions(&tiny, at: [0]) == [true])
        var stuck = TokenBucket(ratePerSecond: .nan, burst: .nan)
        #expect(stuck.ratePerSecond == 0)
        #expect(admissions(&stuck, at: [0, 1000]) == [true, false])
        let negative = TokenBucket(ratePerSecond: -5, burst: 3)
        #expect(negative.ratePerSecond == 0)
    }
}
