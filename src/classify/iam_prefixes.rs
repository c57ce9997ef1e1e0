//! IAM service prefixes (the `svc` in `svc:Action`). A denied action is posted only when its
//! prefix is one of these, so that an ARN (`arn:aws`) or an IPv6 fragment (`a:A`) that follows
//! `perform:` in a message can never pass for an action.
//!
//! Sources: the SigV4 signing names of aws-sdk-go-v2 (gathered by
//! `find service -name endpoints.go | xargs awk '/signingName = /{print $3}'`, as listed in
//! gravitational/teleport `lib/utils/aws/signing_test.go`), which are the IAM prefixes for almost
//! every service; plus the prefixes of the Service Authorization Reference whose signing name
//! differs or which are newer
//! (<https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html>).

/// Sorted, separated by single spaces.
const IAM_PREFIXES: &str = "\
a4b access-analyzer account acm acm-pca aiops airflow amplify amplifybackend \
amplifyuibuilder aoss apigateway app-integrations appconfig appconfigdata appfabric appflow \
application-autoscaling application-cost-profiler application-signals applicationinsights \
appmesh apprunner appstream appsync aps arc-zonal-shift artifact athena auditmanager \
autoscaling autoscaling-plans aws-marketplace aws-marketplace-management aws-portal \
awsiottwinmaker awsmigrationhubstrategyrecommendation awsmobilehubservice awsproton20200720 \
awsssooidc awsssoportal b2bi backup backup-gateway backup-storage batch bcm-data-exports \
bedrock billing billingconductor braket budgets ce chatbot chime cleanrooms cloud9 \
cloudcontrolapi clouddirectory cloudformation cloudfront cloudfront-keyvaluestore cloudhsm \
cloudsearch cloudshell cloudtrail cloudtrail-data cloudwatch codeartifact codebuild \
codecatalyst codecommit codeconnections codedeploy codeguru codeguru-profiler \
codeguru-reviewer codeguru-security codepipeline codestar codestar-connections \
codestar-notifications codewhisperer cognito-identity cognito-idp cognito-sync comprehend \
comprehendmedical compute-optimizer config connect consolidatedbilling controltower \
cost-optimization-hub cur databrew dataexchange datapipeline datasync datazone dax deadline \
detective devicefarm devops-guru directconnect discovery dlm dms drs ds ds-data dsql \
dynamodb ebs ec2 ec2-instance-connect ec2messages ecr ecr-public ecs eks eks-auth \
elastic-inference elasticache elasticbeanstalk elasticfilesystem elasticloadbalancing \
elasticmapreduce elastictranscoder emr-containers emr-serverless entityresolution es events \
evidently execute-api finspace finspace-api firehose fis fms forecast frauddetector freetier \
fsx gamelift geo glacier globalaccelerator glue grafana greengrass groundstation guardduty \
health healthlake honeycode iam identity-sync identitystore imagebuilder inspector \
inspector-scan inspector2 internetmonitor invoicing iot iot-jobs-data iot1click iotanalytics \
iotdata iotdeviceadvisor iotevents ioteventsdata iotfleethub iotfleetwise \
iotsecuredtunneling iotsitewise iotthingsgraph iotwireless iq ivs ivschat kafka \
kafka-cluster kafkaconnect kendra kinesis kinesisanalytics kinesisvideo kms lakeformation \
lambda launchwizard lex license-manager lightsail logs lookoutequipment lookoutmetrics \
lookoutvision m2 machinelearning macie macie2 managedblockchain marketplacecommerceanalytics \
mediaconnect mediaconvert medialive mediapackage mediapackage-vod mediapackagev2 mediastore \
mediatailor memorydb mgh mgn mobiletargeting monitoring mq mturk-requester network-firewall \
networkmanager nimble notifications oam omics opsworks opsworks-cm organizations osis \
outposts panorama payment-cryptography pca-connector-ad personalize pi pipes polly pricing \
profile purchase-orders q qbusiness qldb quicksight ram rbin rds rds-data rds-db redshift \
redshift-data redshift-serverless refactor-spaces rekognition repostspace resiliencehub \
resource-explorer-2 resource-groups robomaker rolesanywhere route53 route53-recovery-cluster \
route53-recovery-control-config route53-recovery-readiness route53domains route53profiles \
route53resolver rum s3 s3-object-lambda s3-outposts s3express s3tables sagemaker \
savingsplans scheduler schemas sdb secretsmanager securityhub securitylake serverlessrepo \
servicecatalog servicediscovery servicequotas ses shield signer simspaceweaver sms sms-voice \
snow-device-management snowball sns sqlworkbench sqs ssm ssm-contacts ssm-guiconnect \
ssm-incidents ssm-quicksetup ssm-sap ssmmessages sso sso-directory sso-oauth states \
storagegateway sts support supportplans swf synthetics tag tagging tax textract timestream \
tiros transcribe transfer translate trustedadvisor verifiedpermissions voiceid vpc-lattice \
vpc-lattice-svcs waf waf-regional wafv2 wellarchitected wickr wisdom workdocs worklink \
workmail workmailmessageflow workspaces workspaces-web xray";

/// Whether `prefix` is an IAM service prefix (lower case, as IAM writes it).
pub fn is_iam_prefix(prefix: &str) -> bool {
    IAM_PREFIXES.split(' ').any(|known| known == prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_unique() {
        let prefixes: Vec<&str> = IAM_PREFIXES.split(' ').collect();
        assert!(prefixes.len() > 300, "{}", prefixes.len());
        for pair in prefixes.windows(2) {
            assert!(pair[0] < pair[1], "{} before {}", pair[0], pair[1]);
        }
    }

    #[test]
    fn every_mapped_service_prefix_is_known() {
        for prefix in super::super::services::all_prefixes() {
            assert!(is_iam_prefix(prefix), "{prefix}");
        }
    }

    #[test]
    fn arn_and_hex_fragments_are_not_prefixes() {
        for not in ["arn", "a", "fe80", "2001", "db8", "AWS", "Iam"] {
            assert!(!is_iam_prefix(not), "{not}");
        }
        for yes in ["iam", "ec2", "s3", "kms", "elasticloadbalancing", "sts"] {
            assert!(is_iam_prefix(yes), "{yes}");
        }
    }
}
