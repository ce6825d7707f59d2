print("Standups: coming soon")
