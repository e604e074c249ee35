import FuzzSupport
import Settings

/// Every live key, and one that is none, for the first input byte to choose from.
let keys = LiveKey.allCases.map(\.rawValue) + ["no_such_key"]

// One `P/config/<key>/set` value: the first byte picks the key, the rest is the raw payload.
runFuzzer { data, count in
    let input = inputBytes(data, count)
    guard let first = input.first else { return 0 }
    let key = keys[Int(first) % keys.count]
    _ = try? LiveSettings().applying(key: key, rawValue: Array(input.dropFirst()))
    return 0
}
