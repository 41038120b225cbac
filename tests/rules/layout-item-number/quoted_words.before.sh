#!/bin/bash
# The new element needs Hydra's quotes: inside the shell's single quotes they are `"`, bare they are
# quoted for the shell, in double quotes `'` as Hydra writes it.
python3 -m designer.run 'model.contigs=[480-480,A1-50]'
python3 -m designer.run model.contigs=[480-480,A1-50]
python3 -m designer.run "model.contigs=[480-480,A1-50]"
