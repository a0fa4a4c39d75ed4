# checklist stage (being written)
