print("CounterFact: coming soon")
