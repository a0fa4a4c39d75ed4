# The validated configuration, written once for every job to read.


rule config_dump:
    """Write the validated configuration (defaults filled) so every job reads the same values."""
    output:
        CONFIG_FILE,
    log:
        "logs/config_dump.log",
    conda:
        "../../envs/twelveways.yaml"
    params:
        # the hash makes the rule rerun whenever any config value changes
        config_hash=canonical_hash(config),
    run:
        from twelveways.config import write_json

        write_json(config, output[0])
