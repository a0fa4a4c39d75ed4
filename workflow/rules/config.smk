# The validated configuration, written once for every job to read.


rule config_dump:
    """Write the validated configuration (defaults filled) so every job reads the same values."""
    output:
        CONFIG_FILE,
    log:
        "logs/config_dump.log",
    benchmark:
        "logs/bench/config_dump.tsv"
    conda:
        "../../envs/twelveways.yaml"
    params:
        # the whole text is a param, so the rule reruns whenever any config value changes
        text=dump_text(config),
    shell:
        "(printf '%s' {params.text:q} > {output:q}.tmp && mv {output:q}.tmp {output:q}) 2> {log:q}"
