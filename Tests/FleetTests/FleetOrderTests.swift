import Fleet
import Testing

@Suite("Fleet order: problems first")
struct FleetOrderTests {
    @Test func problemsComeFirstInTheirOrder() {
        let fleet = fleet(
            healthyDevice("plumb/a-ok")
            + healthyDevice("plumb/b-tilted", level: false)
            + healthyDevice("plumb/c-alarm", level: false, alarm: true)
            + healthyDevice("plumb/d-fault", sensor: "fault")
            + healthyDevice("plumb/e-offline", status: "offline")
            + [("plumb/f-silent/state", #"{"level":true,"sensor":"ok"}"#)]  // no status: counts as offline
        )
        #expect(fleet.devices.map(\.id) == ["e-offline", "f-silent", "d-fault", "c-alarm", "b-tilted", "a-ok"])
        #expect(fleet.devices.map(\.problem) == [.offline, .offline, .sensorFault, .alarm, .notLevel, nil])
    }

    @Test func withinAProblemBySiteThenID() {
        let fleet = fleet(
            healthyDevice("plumb/hall-2/b") + healthyDevice("plumb/hall-1/z") + healthyDevice("plumb/a")
            + healthyDevice("plumb/hall-1/a")
        )
        #expect(fleet.devices.map(\.prefix) == ["plumb/a", "plumb/hall-1/a", "plumb/hall-1/z", "plumb/hall-2/b"])
    }

    @Test func topicsInsideAnotherDevicesNamespaceAreNoDevice() {
        // A stray retained message under the lathe's topics reads like a device "config".
        let fleet = fleet(healthyDevice("plumb/lathe") + [("plumb/lathe/config/state", #"{"level":true}"#)])
        #expect(fleet.devices.map(\.prefix) == ["plumb/lathe"])
    }

    @Test func theSameIDAtTwoSitesIsTwoDevices() {
        let fleet = fleet(healthyDevice("plumb/hall-1/lathe") + healthyDevice("plumb/hall-2/lathe"))
        #expect(fleet.devices.map(\.site) == ["hall-1", "hall-2"])
    }
}
