import Configuration
import FuzzSupport

// A config file's text through libyaml and the loader's checks. `parse` reads no file and no
// environment, so nothing here touches the disk.
runFuzzer { data, count in
    let text = String(decoding: inputBytes(data, count), as: UTF8.self)
    _ = try? AgentConfiguration.parse(yaml: text, source: "fuzz.yaml", hostname: "fuzz-host")
    return 0
}
