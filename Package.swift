// swift-tools-version: 6.0
// ModelKit: app models composed into a live hierarchy, without macros; plus its exhaustive Tester.
import PackageDescription

let package = Package(
    name: "ModelKit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "ModelKit", targets: ["ModelKit"]),
        .library(name: "ModelKitTesting", targets: ["ModelKitTesting"]),
    ],
    targets: [
        .target(name: "ModelKit"),
        .target(name: "ModelKitTesting", dependencies: ["ModelKit"]),
        .testTarget(name: "ModelKitTests", dependencies: ["ModelKit", "ModelKitTesting"]),
    ]
)
