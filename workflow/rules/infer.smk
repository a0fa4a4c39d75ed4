# infer stage (being written)
