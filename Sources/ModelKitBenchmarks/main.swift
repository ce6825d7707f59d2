// ModelKit's benchmarks: `swift run -c release ModelKitBenchmarks [--quick] [--filter S] [--json PATH]`.
// Prints a table of every scenario, ModelKit against its baselines, with the targets of issue 5.
// Timings never fail the run: it exits 0 unless it crashes (or cannot write the JSON it was asked for).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let configuration = Configuration.parse(Array(CommandLine.arguments.dropFirst()))
let scenarios = readWriteScenarios() + observerScenarios() + dependencyScenarios() + eventScenarios()
    + reactionScenarios() + hierarchyScenarios() + continuityScenarios() + memoryScenarios() + testerScenarios()
    + undoScenarios() + environmentScenarios() + scaleScenarios() + standupsWorkloadScenarios()

let clock = ContinuousClock()
let start = clock.now
let results = await Runner(configuration: configuration).run(scenarios) { name in
    printError("measuring: \(name)")
}
let elapsed = clock.now - start

print("ModelKitBenchmarks — \(configuration.summary)\n")
print(Table(results: results).rendered)
print("\n" + Table(results: results).verdict)
print("total time: \(decimal(elapsed.nanoseconds / 1e9, digits: 1)) s")

if let path = configuration.jsonPath {
    guard JSONReport(results, configuration: configuration).write(to: path) else { exit(1) }
    print("JSON written to \(path)")
}
