// swift-tools-version: 6.2
// ModelKit: app models composed into a live hierarchy, without macros; its Tester; two example apps.
import PackageDescription

let package = Package(
    name: "ModelKit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "ModelKit", targets: ["ModelKit"]),
        .library(name: "ModelKitTesting", targets: ["ModelKitTesting"]),
        .executable(name: "CounterFact", targets: ["CounterFact"]),
        .executable(name: "Standups", targets: ["Standups"]),
        .executable(name: "ModelKitBenchmarks", targets: ["ModelKitBenchmarks"]),
    ],
    targets: [
        .target(name: "ModelKit"),
        .target(name: "ModelKitTesting", dependencies: ["ModelKit"]),
        .target(name: "ExampleSupport", dependencies: ["ModelKit"], path: "Examples/Support"),
        .executableTarget(
            name: "CounterFact", dependencies: ["ModelKit", "ExampleSupport"], path: "Examples/CounterFact",
            // As upstream (and Xcode's app template): code is on the main actor unless it says
            // otherwise. Models need no annotation; the dependency's types are `nonisolated`.
            swiftSettings: [.defaultIsolation(MainActor.self)]
        ),
        .executableTarget(name: "Standups", dependencies: ["ModelKit", "ExampleSupport"], path: "Examples/Standups"),
        .executableTarget(name: "ModelKitBenchmarks", dependencies: ["ModelKit", "ModelKitTesting"]),
        .testTarget(name: "ModelKitTests", dependencies: ["ModelKit", "ModelKitTesting"]),
        .testTarget(name: "ModelKitTestingTests", dependencies: ["ModelKit", "ModelKitTesting"]),
        .target(name: "ExampleTestSupport", path: "Tests/ExampleTestSupport"),
        .testTarget(name: "CounterFactTests", dependencies: ["CounterFact", "ModelKit", "ModelKitTesting", "ExampleTestSupport"]),
        .testTarget(name: "StandupsTests", dependencies: ["Standups", "ModelKit", "ModelKitTesting", "ExampleTestSupport"]),
    ]
)
