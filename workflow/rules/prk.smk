# prk stage (being written)
