print("ModelKitBenchmarks: coming soon")
