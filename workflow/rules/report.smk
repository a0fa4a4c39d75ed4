# report stage (being written)
